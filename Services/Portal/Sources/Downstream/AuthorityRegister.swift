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

    private let verification: OfficerCall

    public init(baseURL: URL, policy: DownstreamPolicy, serviceToken: String, http: DownstreamHTTPClient, logger: Logger) {
        verification = OfficerCall(baseURL: baseURL, policy: policy, serviceToken: serviceToken, http: http, logger: logger)
    }

    /// Every authority the token may see, ordered by id.
    public func list(bearer: String) async -> Result<[AuthorityRecord]> {
        await verification.perform(bearer: bearer, doing: "list health authorities", unavailable: .unavailable) { client in
            switch try await client.listAuthorities() {
            case .ok(let ok): .outcome(.done(try ok.body.json.authorities.map(Self.record)))
            case .unauthorized: .refused(.refused)
            case .forbidden: .forbiddenCaller
            case .internalServerError: .outcome(.unavailable)
            case .undocumented(let status, _): .undocumented(status)
            }
        }
    }

    public func get(_ id: String, bearer: String) async -> Result<AuthorityRecord> {
        await verification.perform(bearer: bearer, doing: "read a health authority", unavailable: .unavailable) { client in
            switch try await client.getAuthority(path: .init(authorityId: id)) {
            case .ok(let ok): .outcome(.done(Self.record(try ok.body.json)))
            case .notFound: .outcome(.unknown)
            case .unauthorized(let refusal) where (try? refusal.body.json.error) == "authority_disabled": .outcome(.disabled)
            case .badRequest, .unauthorized: .refused(.refused)
            case .forbidden: .forbiddenCaller
            case .internalServerError: .outcome(.unavailable)
            case .undocumented(let status, _): .undocumented(status)
            }
        }
    }

    public func create(_ authority: AuthorityRecord, bearer: String) async -> Result<AuthorityRecord> {
        let body = Components.Schemas.NewAuthority(
            id: authority.id, name: authority.name, regions: authority.regions, families: Self.families(authority.families),
            teleTansPerHour: authority.teleTANsPerHour.map(Int32.init), teleTansPerDay: authority.teleTANsPerDay.map(Int32.init),
            issuerCodesPerHour: authority.issuerCodesPerHour.map(Int32.init), issuerCodesPerDay: authority.issuerCodesPerDay.map(Int32.init),
            disabled: authority.disabled
        )
        return await verification.perform(bearer: bearer, doing: "create a health authority", unavailable: .unavailable) { client in
            switch try await client.createAuthority(body: .json(body)) {
            case .created(let created): .outcome(.done(Self.record(try created.body.json)))
            case .conflict: .outcome(.exists)
            case .badRequest, .unauthorized: .refused(.refused)
            case .forbidden: .forbiddenCaller
            case .internalServerError: .outcome(.unavailable)
            case .undocumented(let status, _): .undocumented(status)
            }
        }
    }

    /// Replaces the authority's settings (its id stays).
    public func change(_ authority: AuthorityRecord, bearer: String) async -> Result<AuthorityRecord> {
        let body = Components.Schemas.AuthoritySettings(
            name: authority.name, regions: authority.regions, families: Self.families(authority.families),
            teleTansPerHour: authority.teleTANsPerHour.map(Int32.init), teleTansPerDay: authority.teleTANsPerDay.map(Int32.init),
            issuerCodesPerHour: authority.issuerCodesPerHour.map(Int32.init), issuerCodesPerDay: authority.issuerCodesPerDay.map(Int32.init),
            disabled: authority.disabled
        )
        return await verification.perform(bearer: bearer, doing: "change a health authority", unavailable: .unavailable) { client in
            switch try await client.changeAuthority(path: .init(authorityId: authority.id), body: .json(body)) {
            case .ok(let ok): .outcome(.done(Self.record(try ok.body.json)))
            case .notFound: .outcome(.unknown)
            case .badRequest, .unauthorized: .refused(.refused)
            case .forbidden: .forbiddenCaller
            case .internalServerError: .outcome(.unavailable)
            case .undocumented(let status, _): .undocumented(status)
            }
        }
    }

    private static func record(_ authority: Components.Schemas.Authority) -> AuthorityRecord {
        AuthorityRecord(
            id: authority.id, name: authority.name, regions: authority.regions, families: authority.families.map(\.rawValue),
            teleTANsPerHour: authority.teleTansPerHour.map(Int.init), teleTANsPerDay: authority.teleTansPerDay.map(Int.init),
            issuerCodesPerHour: authority.issuerCodesPerHour.map(Int.init), issuerCodesPerDay: authority.issuerCodesPerDay.map(Int.init),
            disabled: authority.disabled
        )
    }

    private static func families(_ names: [String]) -> [Components.Schemas.AppFamily] {
        names.compactMap(Components.Schemas.AppFamily.init(rawValue:))
    }
}
