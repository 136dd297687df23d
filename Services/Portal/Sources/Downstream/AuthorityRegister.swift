import ExposureCore
import Foundation
import Logging
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import PortalDomain
import VerificationClient

/// The health authorities as verification keeps them (`/version/v1/authorities`), read and changed with a system
/// administrator's bearer token; verification checks the role (`c19sysadmin`) itself, so the portal's own check is
/// never the only one.
public struct AuthorityRegister: Sendable {
    public enum Result<Value: Sendable & Equatable>: Sendable, Equatable {
        case done(Value)
        /// 409 `authority_exists`.
        case exists
        /// 404 `unknown_authority`.
        case unknown
        /// 401 `authority_disabled`: the token's own authority is disabled (never for a system administrator's).
        case disabled
        /// Verification refused the request (400) or the token (401).
        case refused
        /// Verification could not be reached or failed (5xx, timeout, an undocumented answer).
        case unavailable
    }

    private let baseURL: URL
    private let serviceToken: String
    private let transport: AsyncHTTPClientTransport
    private let policy: DownstreamPolicy
    private let logger: Logger

    public init(baseURL: URL, policy: DownstreamPolicy, serviceToken: String, http: DownstreamHTTPClient, logger: Logger) {
        self.baseURL = baseURL
        self.serviceToken = serviceToken
        self.transport = http.transport(timeout: policy.timeout)
        self.policy = policy
        self.logger = logger
    }

    /// Every authority the token may see, ordered by id.
    public func list(bearer: String) async -> Result<[AuthorityRecord]> {
        await call(bearer: bearer, doing: "list") { client in
            switch try await client.listAuthorities() {
            case .ok(let ok): .done(try ok.body.json.authorities.map(Self.record))
            case .unauthorized: .refused
            case .forbidden: .forbiddenCaller
            case .internalServerError: .unavailable
            case .undocumented(let status, _): .undocumented(status)
            }
        }
    }

    public func get(_ id: String, bearer: String) async -> Result<AuthorityRecord> {
        await call(bearer: bearer, doing: "read") { client in
            switch try await client.getAuthority(path: .init(authorityId: id)) {
            case .ok(let ok): .done(Self.record(try ok.body.json))
            case .notFound: .unknown
            case .unauthorized(let refusal) where (try? refusal.body.json.error) == "authority_disabled": .disabled
            case .badRequest, .unauthorized: .refused
            case .forbidden: .forbiddenCaller
            case .internalServerError: .unavailable
            case .undocumented(let status, _): .undocumented(status)
            }
        }
    }

    public func create(_ authority: AuthorityRecord, bearer: String) async -> Result<AuthorityRecord> {
        let body = Components.Schemas.NewAuthority(
            id: authority.id, name: authority.name, regions: authority.regions, families: Self.families(authority.families),
            teleTansPerHour: authority.teleTANsPerHour.map(Int32.init), teleTansPerDay: authority.teleTANsPerDay.map(Int32.init),
            disabled: authority.disabled
        )
        return await call(bearer: bearer, doing: "create") { client in
            switch try await client.createAuthority(body: .json(body)) {
            case .created(let created): .done(Self.record(try created.body.json))
            case .conflict: .exists
            case .badRequest, .unauthorized: .refused
            case .forbidden: .forbiddenCaller
            case .internalServerError: .unavailable
            case .undocumented(let status, _): .undocumented(status)
            }
        }
    }

    /// Replaces the authority's settings (its id stays).
    public func change(_ authority: AuthorityRecord, bearer: String) async -> Result<AuthorityRecord> {
        let body = Components.Schemas.AuthoritySettings(
            name: authority.name, regions: authority.regions, families: Self.families(authority.families),
            teleTansPerHour: authority.teleTANsPerHour.map(Int32.init), teleTansPerDay: authority.teleTANsPerDay.map(Int32.init),
            disabled: authority.disabled
        )
        return await call(bearer: bearer, doing: "change") { client in
            switch try await client.changeAuthority(path: .init(authorityId: authority.id), body: .json(body)) {
            case .ok(let ok): .done(Self.record(try ok.body.json))
            case .notFound: .unknown
            case .badRequest, .unauthorized: .refused
            case .forbidden: .forbiddenCaller
            case .internalServerError: .unavailable
            case .undocumented(let status, _): .undocumented(status)
            }
        }
    }

    private static func record(_ authority: Components.Schemas.Authority) -> AuthorityRecord {
        AuthorityRecord(
            id: authority.id, name: authority.name, regions: authority.regions, families: authority.families.map(\.rawValue),
            teleTANsPerHour: authority.teleTansPerHour.map(Int.init), teleTANsPerDay: authority.teleTansPerDay.map(Int.init),
            disabled: authority.disabled
        )
    }

    private static func families(_ names: [String]) -> [Components.Schemas.AppFamily] {
        names.compactMap(Components.Schemas.AppFamily.init(rawValue:))
    }

    /// What one operation answered, before the steps every operation shares turn it into a `Result`.
    private enum Answer<Value> {
        case done(Value), exists, unknown, disabled, refused, unavailable, undocumented(Int)
        /// Verification does not let this service's token reach the route (`INTERNAL_API_TOKENS` must name it portal).
        case forbiddenCaller
    }

    private func call<Value>(bearer: String, doing what: String, _ operation: (Client) async throws -> Answer<Value>) async -> Result<Value> {
        let client = Client.verification(
            baseURL: baseURL,
            transport: transport,
            middlewares: [CredentialClientMiddleware.bearer(bearer)] + ServiceClients.middlewares(policy: policy, serviceToken: serviceToken, logger: logger)
        )
        do {
            switch try await operation(client) {
            case .done(let value): return .done(value)
            case .exists: return .exists
            case .unknown: return .unknown
            case .disabled: return .disabled
            case .refused:
                logger.warning("verification refused a request on the health authorities", metadata: ["operation": "\(what)"])
                return .refused
            case .unavailable: return .unavailable
            case .forbiddenCaller:
                logger.error("verification does not let this service's token reach the health authorities; its INTERNAL_API_TOKENS must name it portal")
                return .unavailable
            case .undocumented(let status):
                logger.error("verification answered an undocumented status", metadata: ["status": "\(status)", "operation": "\(what)"])
                return .unavailable
            }
        } catch {
            logger.error("verification could not be reached", metadata: ["error": "\(type(of: error))", "operation": "\(what)"])
            return .unavailable
        }
    }
}
