import ExposureCore
import Foundation
import VerificationDomain

/// The health authorities (openapi/verification.yaml, `/version/v1/authorities`): the officer's authority behind every
/// issuance (its families, regions and limits), and the API through which the portal administers them with an
/// officer's token. A system administrator (`c19sysadmin`) reads and writes every authority; any other officer reads
/// only their own, and another's id is answered as one that does not exist.
extension VerificationAPI {
    // MARK: The officer's authority

    /// The officer of the request's bearer token and their health authority, enabled. Every refusal is a 401: an
    /// invalid token `unauthorized`, an authority that does not exist (or, of a configured claim's values, not exactly
    /// one that does) `unknown_authority`, a disabled one `authority_disabled`.
    func officerAndAuthority(endpoint: String) async throws -> (VerifiedOfficer, Authority) {
        let officer = try await verifiedOfficer(endpoint: endpoint)
        return (officer, try await authority(of: officer, endpoint: endpoint))
    }

    /// The officer of the request's bearer token (401 `unauthorized` for an invalid one), their authority unread.
    func verifiedOfficer(endpoint: String) async throws -> VerifiedOfficer {
        do {
            return try await officers.officer(of: BearerToken.current)
        } catch {
            count(endpoint, "unauthorized")
            throw APIError.unauthorized("A valid bearer token with the officer's roles is required.")
        }
    }

    /// The supervisor's enabled authority, for the work a supervisor does on it (issuer keys, signing keys): 401
    /// `unauthorized` for a token without the supervisor's role.
    func supervisorsAuthority(_ officer: VerifiedOfficer, endpoint: String) async throws -> Authority {
        guard officer.roles.contains(OfficerRoles.supervisor) else {
            count(endpoint, "missing_role")
            throw APIError.unauthorized("The token does not carry the role \(OfficerRoles.supervisor) this needs.")
        }
        return try await authority(of: officer, endpoint: endpoint)
    }

    /// The officer's health authority, enabled (401 `unknown_authority` or `authority_disabled` otherwise).
    func authority(of officer: VerifiedOfficer, endpoint: String) async throws -> Authority {
        let known = try await authorities.authorities(ids: officer.authority.candidates)
        guard let id = officer.authority.choose(among: known.map(\.id)), let authority = known.first(where: { $0.id == id }) else {
            count(endpoint, "unknown_authority")
            throw APIError(.unauthorized, code: "unknown_authority", message: "The token names no known health authority.")
        }
        guard !authority.settings.disabled else {
            count(endpoint, "authority_disabled")
            throw APIError(.unauthorized, code: "authority_disabled", message: "The token's health authority is disabled.")
        }
        return authority
    }

    /// Refuses, 400 `family_not_allowed`, an issuance for a family the officer's authority may not issue.
    func requireFamily(_ family: AppFamily, of authority: Authority, endpoint: String) throws(APIError) {
        guard authority.issues(family) else {
            count(endpoint, "family_not_allowed")
            throw APIError.badRequest("Your health authority may not issue codes of the app family \(family.rawValue).", code: "family_not_allowed")
        }
    }

    /// The counters of an officer's issuance at `now`: the officer's, their authority's, everyone's.
    func issuanceCounters(_ officer: VerifiedOfficer, of authority: Authority, now: Date) -> OfficerIssuanceCounters {
        OfficerIssuanceCounters(
            officer: .init(scope: TeleTANRateLimit.officerScope(issuer: officer.issuer, subject: officer.subject), limit: rateLimit.perOfficer),
            authority: authority.counters(now: now),
            global: .init(scope: TeleTANRateLimit.globalScope, limit: rateLimit.limit)
        )
    }

    /// Warns operators when everyone's counter passes 80 % of its limit.
    func warnNearLimit(_ counts: [Int], of counters: OfficerIssuanceCounters) {
        if rateLimit.decide(issuedInWindow: counts[counters.globalIndex] - 1) == .allowedNearLimit {
            logger.warning("teleTAN issuance above 80 % of the rate limit", metadata: ["limit": "\(rateLimit.limit)"])
        }
    }

    /// The answer when one of an officer's issuance counters is at its limit.
    func refusal(_ limit: OfficerIssuanceCounters.Limit, authority: Authority) -> APIError {
        switch limit {
        case .officer:
            logger.notice("teleTAN limit of one officer reached", metadata: ["limit": "\(rateLimit.perOfficer)"])
            return APIError.tooManyRequests("Your limit of teleTANs per period is reached; try again later.")
        case .authority:
            countRateLimited("authority_issuance")
            logger.notice("teleTAN limit of a health authority reached", metadata: ["authority": "\(authority.id)"])
            return APIError(
                .tooManyRequests, code: "authority_rate_limited",
                message: "Your health authority's limit of teleTANs and codes per hour or day is reached; try again later."
            )
        case .global:
            countRateLimited("teletan_issuance")
            logger.warning("teleTAN rate limit reached", metadata: ["limit": "\(rateLimit.limit)"])
            return APIError.tooManyRequests("The limit of teleTANs per period is reached; try again later.")
        }
    }

    // MARK: The API

    func listAuthorities(_ input: Operations.listAuthorities.Input) async throws -> Operations.listAuthorities.Output {
        // A system administrator belongs to no authority: their own is never read, so that disabling any authority
        // (the one their token might name included) never locks them out of enabling it again.
        let officer = try await verifiedOfficer(endpoint: "authorities")
        let visible = Self.isSysadmin(officer) ? try await authorities.list() : [try await authority(of: officer, endpoint: "authorities")]
        return .ok(.init(body: .json(.init(authorities: visible.map(Self.schema)))))
    }

    func getAuthority(_ input: Operations.getAuthority.Input) async throws -> Operations.getAuthority.Output {
        let id = try Self.authorityID(input.path.authorityId)
        let officer = try await verifiedOfficer(endpoint: "authorities")
        // Another authority's is answered as one that does not exist: an officer learns no other authority's ids.
        let found: Authority?
        if Self.isSysadmin(officer) {
            found = try await authorities.authority(id: id)
        } else {
            let own = try await authority(of: officer, endpoint: "authorities")
            found = own.id == id ? own : nil
        }
        guard let found else { throw unknownAuthority }
        return .ok(.init(body: .json(Self.schema(found))))
    }

    func createAuthority(_ input: Operations.createAuthority.Input) async throws -> Operations.createAuthority.Output {
        guard case .json(let body) = input.body else { throw APIError.forStatus(.unsupportedMediaType) }
        try await requireSysadmin()
        let id = try Self.authorityID(body.id)
        let settings = try Self.settings(
            name: body.name, regions: body.regions, families: body.families, perHour: body.teleTansPerHour, perDay: body.teleTansPerDay,
            issuerPerHour: body.issuerCodesPerHour, issuerPerDay: body.issuerCodesPerDay, disabled: body.disabled
        )
        guard let created = try await authorities.create(id: id, settings: settings, now: clock.now()) else {
            throw APIError(.conflict, code: "authority_exists", message: "A health authority with the id \(id) exists.")
        }
        logger.notice("health authority created", metadata: ["authority": "\(id)"])
        return .created(.init(body: .json(Self.schema(created))))
    }

    func changeAuthority(_ input: Operations.changeAuthority.Input) async throws -> Operations.changeAuthority.Output {
        guard case .json(let body) = input.body else { throw APIError.forStatus(.unsupportedMediaType) }
        try await requireSysadmin()
        let id = try Self.authorityID(input.path.authorityId)
        let settings = try Self.settings(
            name: body.name, regions: body.regions, families: body.families, perHour: body.teleTansPerHour, perDay: body.teleTansPerDay,
            issuerPerHour: body.issuerCodesPerHour, issuerPerDay: body.issuerCodesPerDay, disabled: body.disabled
        )
        guard let changed = try await authorities.change(id: id, to: settings, now: clock.now()) else { throw unknownAuthority }
        logger.notice("health authority changed", metadata: ["authority": "\(id)", "disabled": "\(settings.disabled)"])
        return .ok(.init(body: .json(Self.schema(changed))))
    }

    // MARK: Helpers

    private var unknownAuthority: APIError {
        APIError.notFound("No such health authority.", code: "unknown_authority")
    }

    private static func isSysadmin(_ officer: VerifiedOfficer) -> Bool {
        officer.roles.contains(OfficerRoles.systemAdministrator)
    }

    /// Refuses, 401, a token that is not a system administrator's.
    private func requireSysadmin() async throws {
        let officer = try await verifiedOfficer(endpoint: "authorities")
        guard Self.isSysadmin(officer) else {
            count("authorities", "missing_role")
            throw APIError.unauthorized("The token does not carry the role \(OfficerRoles.systemAdministrator) needed to change health authorities.")
        }
    }

    private static func authorityID(_ text: String) throws(APIError) -> String {
        guard AuthorityID.isWellFormed(text) else {
            throw APIError.badRequest("An authority's id has 1 to 32 of a-z, 0-9 and '-', and does not start with '-'.", code: "invalid_authority")
        }
        return text
    }

    /// The settings of a request, validated: 400 `invalid_authority` with the first problem.
    private static func settings(
        name: String, regions: [String], families: [Components.Schemas.AppFamily], perHour: Int32?, perDay: Int32?,
        issuerPerHour: Int32?, issuerPerDay: Int32?, disabled: Bool
    ) throws(APIError) -> AuthoritySettings {
        let parsed = families.compactMap { AppFamily(rawValue: $0.rawValue) }
        guard Set(parsed).count == families.count else {
            throw APIError.badRequest("families lists a family twice.", code: "invalid_authority")
        }
        let settings = AuthoritySettings(
            name: name, regions: regions, families: Set(parsed), teleTANsPerHour: perHour.map(Int.init), teleTANsPerDay: perDay.map(Int.init),
            issuerCodesPerHour: issuerPerHour.map(Int.init), issuerCodesPerDay: issuerPerDay.map(Int.init), disabled: disabled
        )
        if let problem = settings.problem { throw APIError.badRequest(problem, code: "invalid_authority") }
        return settings
    }

    static func schema(_ authority: Authority) -> Components.Schemas.Authority {
        let settings = authority.settings
        return .init(
            id: authority.id, name: settings.name, regions: settings.regions,
            families: settings.families.sorted().compactMap { Components.Schemas.AppFamily(rawValue: $0.rawValue) },
            teleTansPerHour: settings.teleTANsPerHour.map(Int32.init), teleTansPerDay: settings.teleTANsPerDay.map(Int32.init),
            issuerCodesPerHour: settings.issuerCodesPerHour.map(Int32.init), issuerCodesPerDay: settings.issuerCodesPerDay.map(Int32.init),
            disabled: settings.disabled, createdAt: authority.createdAt
        )
    }
}
