import Foundation
import ExposureCore
import HTTPTypes
import OpenAPIRuntime

/// Lets through only requests with `Authorization: Bearer <token>` of a configured reader (`STATISTICS_API_TOKENS`);
/// answers every other one 401 `unknown_reader` before the handler runs.
struct StatisticsReaderMiddleware: ServerMiddleware {
    let readers: ServiceTokens

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard let token = request.headerFields.bearerToken, readers.caller(presenting: token) != nil else {
            throw APIError(.unauthorized, code: "unknown_reader", message: "A bearer token of a reader in STATISTICS_API_TOKENS is required.")
        }
        return try await next(request, body, metadata)
    }
}
