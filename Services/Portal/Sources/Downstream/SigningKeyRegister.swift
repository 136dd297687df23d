import ExposureCore
import Foundation
import Logging
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import PortalDomain
import VerificationClient

/// The versions of a health authority's signing key, as verification keeps them (`/version/v1/signing-keys`): listed,
/// made and retired with the officer's own bearer token, so that verification decides which authority's keys they
/// may see (a system administrator's token sees every authority's) and touch (a supervisor's, their own).
public struct SigningKeyRegister: Sendable {
    public enum Result<Value: Sendable & Equatable>: Sendable, Equatable {
        case done(Value)
        /// 404 `unknown_signing_key`: no live key of the officer's authority has the id (or the id is none).
        case unknown
        /// 409 `active_signing_key`: the version that signs cannot be retired.
        case active
        /// 503 `signing_keys_unavailable`: the installation has no key to seal private halves with.
        case cannotSeal
        /// Verification refused the token (401).
        case refused
        /// Verification could not be reached or failed (5xx, timeout, an undocumented answer).
        case unavailable
    }

    private let verification: OfficerCall

    public init(baseURL: URL, policy: DownstreamPolicy, serviceToken: String, http: DownstreamHTTPClient, logger: Logger) {
        verification = OfficerCall(baseURL: baseURL, policy: policy, serviceToken: serviceToken, http: http, logger: logger)
    }

    public func list(bearer: String) async -> Result<[SigningKeyRecord]> {
        await verification.perform(bearer: bearer, doing: "list signing keys", unavailable: .unavailable) { client in
            switch try await client.listSigningKeys() {
            case .ok(let ok): .outcome(.done(try ok.body.json.keys.map(Self.record)))
            case .unauthorized: .refused(.refused)
            case .forbidden: .forbiddenCaller
            case .internalServerError: .outcome(.unavailable)
            case .undocumented(let status, _): .undocumented(status)
            }
        }
    }

    /// Makes the next version of the officer's authority's key, which signs from now on.
    public func rotate(bearer: String) async -> Result<SigningKeyRecord> {
        await verification.perform(bearer: bearer, doing: "make a signing key", unavailable: .unavailable) { client in
            switch try await client.rotateSigningKey() {
            case .created(let created): .outcome(.done(Self.record(try created.body.json)))
            case .serviceUnavailable: .outcome(.cannotSeal)
            case .unauthorized: .refused(.refused)
            case .forbidden: .forbiddenCaller
            case .internalServerError: .outcome(.unavailable)
            case .undocumented(let status, _): .undocumented(status)
            }
        }
    }

    public func retire(keyID: String, bearer: String) async -> Result<Bool> {
        await verification.perform(bearer: bearer, doing: "retire a signing key", unavailable: .unavailable) { client in
            switch try await client.retireSigningKey(path: .init(keyId: keyID)) {
            case .noContent: .outcome(.done(true))
            // A malformed id names no key: the officer sees the same answer.
            case .notFound, .badRequest: .outcome(.unknown)
            case .conflict: .outcome(.active)
            case .unauthorized: .refused(.refused)
            case .forbidden: .forbiddenCaller
            case .internalServerError: .outcome(.unavailable)
            case .undocumented(let status, _): .undocumented(status)
            }
        }
    }

    private static func record(_ key: Components.Schemas.SigningKey) -> SigningKeyRecord {
        let state: SigningKeyRecord.State = switch key.state {
        case .active: .active
        case .published: .published
        case .retired: .retired
        }
        return SigningKeyRecord(
            keyID: key.keyId, authority: key.authority, version: Int(key.version), state: state, createdAt: key.createdAt,
            createdBy: key.createdBy, retiredAt: key.retiredAt
        )
    }
}
