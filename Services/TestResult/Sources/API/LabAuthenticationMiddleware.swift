import ExposureCore
import Foundation
import HTTPTypes
import OpenAPIRuntime
import TestResultDomain

/// The lab a request was authenticated as, for the handlers of the lab endpoints.
enum AuthenticatedLab {
    @TaskLocal static var labID: String?
}

/// Authenticates the lab endpoints: `Authorization: Bearer <API key>` must name an active key, or (when the lab
/// listener speaks TLS) the client certificate's fingerprint must be registered. The credential's lab id is the one
/// every result of the request is stored under. Unknown or missing credential → 401.
struct LabAuthenticationMiddleware: ServerMiddleware {
    let credentials: LabCredentialStore
    /// Whether the fingerprint header comes from the TLS layer (`ListenerTLS` asking for client certificates). On a
    /// plain listener nothing removes a copy a client sent, and a certificate's fingerprint is no secret: there the
    /// header is ignored, and only API keys authenticate.
    let certificatesFromTLS: Bool
    let clock: any WallClock
    /// The credentials whose use of today this replica has written (`LabCredentialStore.markUsed`).
    let usesWritten = DailyUseNotes()
    let protectedOperations: Set<String> = ["postLabResults", "postQuickTestResults"]

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard protectedOperations.contains(operationID) else { return try await next(request, body, metadata) }
        let labID: String
        let credential: String
        if request.headerFields[.authorization] != nil {
            guard let key = request.headerFields.bearerToken else {
                throw APIError.unauthorized("Send the lab's API key as 'Authorization: Bearer <key>'.")
            }
            let hash = LabAPIKey.isWellFormed(key) ? LabAPIKey.hash(key) : nil
            guard let hash, let found = try await credentials.labID(forKeyHash: hash) else {
                throw APIError.unauthorized("The API key is unknown or revoked.")
            }
            labID = found
            credential = hash
        } else if certificatesFromTLS, let fingerprint = request.headerFields[ListenerTLS.clientCertificateHeader] {
            // Set only by the TLS layer from the certificate the client presented (a client-sent copy is removed).
            guard let found = try await credentials.labID(forKeyHash: fingerprint, kind: .certificate) else {
                throw APIError.unauthorized("The client certificate is not registered for a lab.")
            }
            labID = found
            credential = fingerprint
        } else {
            throw APIError.unauthorized("Authenticate with a registered client certificate or 'Authorization: Bearer <API key>'.")
        }
        let day = clock.now().epochSeconds / 86_400
        try await usesWritten.note(credential, day: day) { try await credentials.markUsed(keyHash: credential, day: day) }
        return try await AuthenticatedLab.$labID.withValue(labID) {
            try await next(request, body, metadata)
        }
    }
}
