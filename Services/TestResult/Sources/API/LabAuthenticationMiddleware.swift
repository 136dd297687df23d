import ExposureCore
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The lab a request was authenticated as, for the handlers of the lab endpoints.
enum AuthenticatedLab {
    @TaskLocal static var labID: String?
}

/// Authenticates the lab endpoints: `Authorization: Bearer <API key>` must name an active key; its lab id is
/// the one every result of the request is stored under. Unknown or missing credential → 401.
struct LabAuthenticationMiddleware: ServerMiddleware {
    let credentials: LabCredentialStore
    let protectedOperations: Set<String> = ["postLabResults", "postQuickTestResults"]

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard protectedOperations.contains(operationID) else { return try await next(request, body, metadata) }
        guard let header = request.headerFields[.authorization], header.lowercased().hasPrefix("bearer ") else {
            throw APIError.unauthorized("Send the lab's API key as 'Authorization: Bearer <key>'.")
        }
        let key = String(header.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
        guard LabAPIKey.isWellFormed(key), let labID = try await credentials.labID(forKeyHash: LabAPIKey.hash(key)) else {
            throw APIError.unauthorized("The API key is unknown or revoked.")
        }
        return try await AuthenticatedLab.$labID.withValue(labID) {
            try await next(request, body, metadata)
        }
    }
}
