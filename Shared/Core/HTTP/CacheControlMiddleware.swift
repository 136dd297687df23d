import HTTPTypes
import OpenAPIRuntime

/// `Cache-Control` on the successful answers of the operations a CDN or a client may keep. The generated server
/// percent-encodes the values of documented headers (`public%2C%20max-age…`, which no cache reads), so the contracts
/// leave the header undocumented in their responses and this writes it after the handler.
public struct CacheControlMiddleware: ServerMiddleware {
    /// The header's value per operation id.
    let values: [String: String]

    public init(_ values: [String: String]) {
        self.values = values
    }

    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var (response, responseBody) = try await next(request, body, metadata)
        if response.status == .ok, let value = values[operationID] {
            response.headerFields[.cacheControl] = value
        }
        return (response, responseBody)
    }
}
