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
        var token: String?
        if let header = request.headerFields[.authorization], header.count > 7, header.prefix(7).lowercased() == "bearer " {
            token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        }
        return try await BearerToken.$current.withValue(token) { try await next(request, body, metadata) }
    }
}
