import HTTPTypes
import OpenAPIRuntime

/// Sets `Cache-Control` on the CovidShield answers a CDN may keep (retrievals and the exposure configuration). The
/// generated server percent-encodes the values of documented headers (`public%2C%20max-age…`), which no cache reads;
/// the header is documented in openapi/covidshield.yaml and written here as is.
struct CovidShieldCacheHeaders: ServerMiddleware {
    static let value = "public, max-age=3600, max-stale=600"
    static let operations: Set<String> = ["retrieveDay", "retrieveHour", "exposureConfiguration"]

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var (response, responseBody) = try await next(request, body, metadata)
        if response.status == .ok, Self.operations.contains(operationID) {
            response.headerFields[.cacheControl] = Self.value
        }
        return (response, responseBody)
    }
}
