import ExposureCore
import HTTPTypes
import OpenAPIRuntime

/// The bearer token of the request being handled, for operations whose document declares a security scheme
/// (the generated input types carry no `Authorization` header).
enum BearerToken {
    @TaskLocal static var current: String?
}

/// Copies `Authorization: Bearer …` into `BearerToken.current` for the handler.
struct BearerTokenMiddleware: ServerMiddleware {
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        try await BearerToken.$current.withValue(request.headerFields.bearerToken) { try await next(request, body, metadata) }
    }
}
