import ExposureCore
import HTTPTypes
import OpenAPIRuntime

/// The headers of the CovidShield answers that the generated server does not write as the reference did:
/// `Cache-Control` on what a CDN may keep (retrievals and the exposure configuration, through the shared
/// `CacheControlMiddleware`), and `X-Content-Type-Options: nosniff` on their plain-text errors, which Go's `http.Error`
/// always set.
struct CovidShieldAnswerHeaders: ServerMiddleware {
    static let cacheControl = "public, max-age=3600, max-stale=600"
    static let operations: Set<String> = ["retrieveDay", "retrieveHour", "exposureConfiguration"]
    static let cacheControls = Dictionary(uniqueKeysWithValues: operations.map { ($0, cacheControl) })

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var (response, responseBody) = try await CacheControlMiddleware(Self.cacheControls).intercept(
            request, body: body, metadata: metadata, operationID: operationID, next: next
        )
        guard Self.operations.contains(operationID) else { return (response, responseBody) }
        if response.status != .ok, response.headerFields[.contentType]?.hasPrefix("text/plain") == true {
            response.headerFields[.xContentTypeOptions] = "nosniff"
        }
        return (response, responseBody)
    }
}
