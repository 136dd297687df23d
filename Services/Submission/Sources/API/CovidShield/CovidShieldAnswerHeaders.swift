import HTTPTypes
import OpenAPIRuntime

/// The headers of the CovidShield answers that the generated server does not write as the reference did:
/// `Cache-Control` on what a CDN may keep (retrievals and the exposure configuration; the generated server
/// percent-encodes the values of documented headers, `public%2C%20max-age…`, which no cache reads), and
/// `X-Content-Type-Options: nosniff` on their plain-text errors, which Go's `http.Error` always set.
struct CovidShieldAnswerHeaders: ServerMiddleware {
    static let cacheControl = "public, max-age=3600, max-stale=600"
    static let operations: Set<String> = ["retrieveDay", "retrieveHour", "exposureConfiguration"]

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var (response, responseBody) = try await next(request, body, metadata)
        guard Self.operations.contains(operationID) else { return (response, responseBody) }
        if response.status == .ok {
            response.headerFields[.cacheControl] = Self.cacheControl
        } else if response.headerFields[.contentType]?.hasPrefix("text/plain") == true {
            response.headerFields[.xContentTypeOptions] = "nosniff"
        }
        return (response, responseBody)
    }
}
