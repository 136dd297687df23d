import ExposureCore
import Foundation
import Logging
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import PortalDomain
import VerificationClient

/// A health authority's issuer keys, as verification keeps them (`/version/v1/issuers`): listed, created and revoked
/// with the supervisor's own bearer token, so that verification decides which authority's keys they may touch.
public struct IssuerKeyRegister: Sendable {
    public enum Result<Value: Sendable & Equatable>: Sendable, Equatable {
        case done(Value)
        /// 409 `issuer_exists`.
        case exists
        /// 404 `unknown_issuer`: no key of the supervisor's authority has the name.
        case unknown
        /// 400: what verification found wrong with the key asked for (its error code: `invalid_issuer`,
        /// `family_not_allowed`, `family_disabled`, `region_not_allowed`).
        case invalid(String)
        /// Verification refused the token (401).
        case refused
        /// Verification could not be reached or failed (5xx, timeout, an undocumented answer).
        case unavailable
    }

    /// A key asked for: its token has yet to be made.
    public struct NewKey: Sendable, Equatable {
        public let name: String
        public let kind: FamilyCodeKind
        public let region: String?
        /// Unix seconds.
        public let expiresAt: Int64?

        public init(name: String, kind: FamilyCodeKind, region: String?, expiresAt: Int64?) {
            self.name = name
            self.kind = kind
            self.region = region
            self.expiresAt = expiresAt
        }
    }

    /// A key just made, and its token, which is never answered again.
    public struct CreatedKey: Sendable, Equatable {
        public let key: IssuerKeyRecord
        public let token: String
    }

    private let verification: OfficerCall

    public init(baseURL: URL, policy: DownstreamPolicy, serviceToken: String, http: DownstreamHTTPClient, logger: Logger) {
        verification = OfficerCall(baseURL: baseURL, policy: policy, serviceToken: serviceToken, http: http, logger: logger)
    }

    public func list(bearer: String) async -> Result<[IssuerKeyRecord]> {
        await verification.perform(bearer: bearer, doing: "list issuer keys", unavailable: .unavailable) { client in
            switch try await client.listIssuerKeys() {
            case .ok(let ok): .outcome(.done(try ok.body.json.issuers.map(Self.record)))
            case .unauthorized: .refused(.refused)
            case .forbidden: .forbiddenCaller
            case .internalServerError: .outcome(.unavailable)
            case .undocumented(let status, _): .undocumented(status)
            }
        }
    }

    public func create(_ key: NewKey, bearer: String) async -> Result<CreatedKey> {
        await verification.perform(bearer: bearer, doing: "create an issuer key", unavailable: .unavailable) { client in
            let kind: Components.Schemas.OneTimeCodeKind = switch key.kind {
            case .covidShield: .COVIDSHIELD
            case .proteGO: .PROTEGO
            }
            let body = Components.Schemas.NewIssuerKey(name: key.name, kind: kind, region: key.region, expiresAt: key.expiresAt)
            switch try await client.createIssuerKey(body: .json(body)) {
            case .created(let created):
                let answer = try created.body.json
                return .outcome(.done(CreatedKey(key: Self.record(answer.issuer), token: answer.token)))
            case .badRequest(let bad): return .outcome(.invalid((try? bad.body.json.error) ?? "invalid_issuer"))
            case .conflict: return .outcome(.exists)
            case .unauthorized, .unsupportedMediaType: return .refused(.refused)
            case .forbidden: return .forbiddenCaller
            case .internalServerError: return .outcome(.unavailable)
            case .undocumented(let status, _): return .undocumented(status)
            }
        }
    }

    public func revoke(name: String, bearer: String) async -> Result<Bool> {
        await verification.perform(bearer: bearer, doing: "revoke an issuer key", unavailable: .unavailable) { client in
            switch try await client.revokeIssuerKey(path: .init(issuerName: name)) {
            case .noContent: .outcome(.done(true))
            case .notFound: .outcome(.unknown)
            case .badRequest(let bad): .outcome(.invalid((try? bad.body.json.error) ?? "invalid_issuer"))
            case .unauthorized: .refused(.refused)
            case .forbidden: .forbiddenCaller
            case .internalServerError: .outcome(.unavailable)
            case .undocumented(let status, _): .undocumented(status)
            }
        }
    }

    private static func record(_ key: Components.Schemas.IssuerKey) -> IssuerKeyRecord {
        IssuerKeyRecord(
            name: key.name, kind: key.kind.rawValue, region: key.region, authority: key.authority, fingerprint: key.fingerprint,
            createdAt: key.createdAt, createdBy: key.createdBy, expiresAt: key.expiresAt, lastUsedDay: key.lastUsedDay
        )
    }
}
