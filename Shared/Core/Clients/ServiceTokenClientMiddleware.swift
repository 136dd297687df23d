import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends this service's token to another service's internal listener (`ServiceTokens`), on every request of a
/// generated client.
public struct ServiceTokenClientMiddleware: ClientMiddleware {
    private let token: String

    public init(token: String) {
        self.token = token
    }

    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[HTTPField.Name(ServiceTokens.header)!] = token
        return try await next(request, body, baseURL)
    }
}
