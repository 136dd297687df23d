import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends a credential in a header on every call of a generated client: the documents declare the schemes, but the
/// generator leaves credentials to the caller.
public struct CredentialClientMiddleware: ClientMiddleware {
    private let field: HTTPField.Name
    private let value: String

    /// This service's token at another service's internal listener (`ServiceTokens`).
    public static func serviceToken(_ token: String) -> Self {
        Self(field: HTTPField.Name(ServiceTokens.header)!, value: token)
    }

    /// `Authorization: Bearer <token>`: an officer's token at verification, a reader token at a statistics API.
    public static func bearer(_ token: String) -> Self {
        Self(field: .authorization, value: "Bearer \(token)")
    }

    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[field] = value
        return try await next(request, body, baseURL)
    }
}
