import ExposureCore
import Foundation
import Logging
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import PortalDomain
import TestResultClient

/// The labs' credentials, as test-result keeps them (`/version/v1/lab-credentials`): listed, created and revoked with
/// the portal's own service token. They are national: the portal lets system administrators only reach them, and
/// test-result lets no other caller's token reach these routes.
public struct LabCredentialRegister: Sendable {
    public enum Result<Value: Sendable & Equatable>: Sendable, Equatable {
        case done(Value)
        /// 404 `unknown_credential`: the lab has no active credential of this fingerprint.
        case unknown
        /// 400: test-result's error code (`invalid_lab_id`, `invalid_fingerprint`).
        case invalid(String)
        /// Test-result could not be reached, refused the portal's token (401, 403), or failed.
        case unavailable
    }

    /// A credential just made, and its API key, which is never answered again.
    public struct CreatedCredential: Sendable, Equatable {
        public let credential: LabCredentialRecord
        public let apiKey: String
    }

    private let client: Client
    private let logger: Logger

    public init(baseURL: URL, policy: DownstreamPolicy, serviceToken: String, http: DownstreamHTTPClient, logger: Logger) {
        client = Client.testResult(
            baseURL: baseURL, transport: http.transport(timeout: policy.timeout),
            middlewares: ServiceClients.middlewares(policy: policy, serviceToken: serviceToken, logger: logger)
        )
        self.logger = logger
    }

    public func list() async -> Result<[LabCredentialRecord]> {
        await perform("list lab credentials") {
            switch try await client.listLabCredentials() {
            case .ok(let ok): .outcome(.done(try ok.body.json.credentials.map(Self.record)))
            case .unauthorized: .refused(.unavailable)
            case .forbidden: .forbiddenCaller
            case .internalServerError: .outcome(.unavailable)
            case .undocumented(let status, _): .undocumented(status)
            }
        }
    }

    /// A new API key for `labID`: its first, or the next of a rotation.
    public func create(labID: String) async -> Result<CreatedCredential> {
        await perform("create a lab credential") {
            switch try await client.createLabCredential(body: .json(.init(labId: labID))) {
            case .created(let created):
                let answer = try created.body.json
                return .outcome(.done(CreatedCredential(credential: Self.record(answer.credential), apiKey: answer.apiKey)))
            case .badRequest(let bad): return .outcome(.invalid((try? bad.body.json.error) ?? "invalid_lab_id"))
            // The portal's small JSON body is never too large or of another type: a refusal of the request.
            case .unauthorized, .contentTooLarge, .unsupportedMediaType: return .refused(.unavailable)
            case .forbidden: return .forbiddenCaller
            case .internalServerError: return .outcome(.unavailable)
            case .undocumented(let status, _): return .undocumented(status)
            }
        }
    }

    public func revoke(labID: String, fingerprint: String) async -> Result<Bool> {
        await perform("revoke a lab credential") {
            switch try await client.revokeLabCredential(path: .init(labId: labID, fingerprint: fingerprint)) {
            case .noContent: .outcome(.done(true))
            case .notFound: .outcome(.unknown)
            case .badRequest(let bad): .outcome(.invalid((try? bad.body.json.error) ?? "invalid_fingerprint"))
            case .unauthorized: .refused(.unavailable)
            case .forbidden: .forbiddenCaller
            case .internalServerError: .outcome(.unavailable)
            case .undocumented(let status, _): .undocumented(status)
            }
        }
    }

    /// One call, settled as every call of another service's internal API is (`DownstreamAnswer.settle`).
    private func perform<Value>(_ what: String, _ call: () async throws -> DownstreamAnswer<Result<Value>>) async -> Result<Value> {
        await DownstreamAnswer.settle("test-result", doing: what, unavailable: .unavailable, logger: logger, call)
    }

    private static func record(_ credential: Components.Schemas.LabCredential) -> LabCredentialRecord {
        LabCredentialRecord(
            labID: credential.labId, isCertificate: credential.kind == .certificate, fingerprint: credential.fingerprint,
            createdAt: credential.createdAt, revokedAt: credential.revokedAt, lastUsedDay: credential.lastUsedDay
        )
    }
}
