import ExposureCore
import ExposureRules
import ExposureStatistics
import Foundation
import VerificationDomain

/// Issuer keys for the portal (openapi/verification.yaml, `/version/v1/issuers`): a supervisor creates, lists and
/// revokes the bearer tokens with which their health authority's systems issue one-time codes on the issuer listener;
/// a system administrator lists every authority's. Another authority's key is answered as one that does not exist.
extension VerificationAPI {
    func listIssuerKeys(_ input: Operations.listIssuerKeys.Input) async throws -> Operations.listIssuerKeys.Output {
        let officer = try await verifiedOfficer(endpoint: "issuer_keys")
        let listed: [IssuerSummary]
        if officer.roles.contains(OfficerRoles.systemAdministrator) {
            listed = try await issuerKeys.list()
        } else {
            let authority = try await supervisorsAuthority(officer, endpoint: "issuer_keys")
            listed = try await issuerKeys.list(authority: authority.id)
        }
        count("issuer_keys", "listed")
        return .ok(.init(body: .json(.init(issuers: listed.map(Self.schema)))))
    }

    func createIssuerKey(_ input: Operations.createIssuerKey.Input) async throws -> Operations.createIssuerKey.Output {
        guard case .json(let body) = input.body else { throw APIError.forStatus(.unsupportedMediaType) }
        let officer = try await verifiedOfficer(endpoint: "issuer_key_create")
        let authority = try await supervisorsAuthority(officer, endpoint: "issuer_key_create")
        guard CodeIssuer.isValidName(body.name) else {
            count("issuer_key_create", "invalid")
            throw APIError.badRequest("An issuer key's name has 1 to 64 letters, digits, '-', '_' or '.'.", code: "invalid_issuer")
        }
        let kind = Self.kind(body.kind)
        guard families.serves(kind) else {
            count("issuer_key_create", "family_disabled")
            throw APIError.badRequest("This deployment does not serve the app family of \(kind.rawValue) codes.", code: "family_disabled")
        }
        try requireFamily(AppFamily(kind), of: authority, endpoint: "issuer_key_create")
        let region = body.region ?? codeRegions.region(of: kind)
        guard OneTimeCodeRegions.isValid(region), authority.serves(region: region) else {
            count("issuer_key_create", "region_not_allowed")
            throw APIError.badRequest("Your health authority may not issue codes for the region \(region).", code: "region_not_allowed")
        }
        let now = clock.now()
        if let expiresAt = body.expiresAt, expiresAt <= now.epochSeconds {
            count("issuer_key_create", "invalid")
            throw APIError.badRequest("expiresAt must be in the future.", code: "invalid_issuer")
        }
        let issuer = CodeIssuer(name: body.name, kind: kind, region: region, authority: authority.id)
        let expiresAt = body.expiresAt.map { Date(timeIntervalSince1970: TimeInterval($0)) }
        guard let created = try await issuerKeys.create(issuer, random: random, now: now, expiresAt: expiresAt, createdBy: officer.subject) else {
            count("issuer_key_create", "exists")
            throw APIError(.conflict, code: "issuer_exists", message: "An issuer key named \(body.name) exists.")
        }
        count("issuer_key_create", "created")
        logger.notice("issuer key created", metadata: ["issuer": "\(issuer.name)", "authority": "\(authority.id)", "officer": "\(officer.subject)"])
        return .created(.init(body: .json(.init(issuer: Self.schema(created.summary), token: created.token))))
    }

    func revokeIssuerKey(_ input: Operations.revokeIssuerKey.Input) async throws -> Operations.revokeIssuerKey.Output {
        let officer = try await verifiedOfficer(endpoint: "issuer_key_revoke")
        let authority = try await supervisorsAuthority(officer, endpoint: "issuer_key_revoke")
        let name = input.path.issuerName
        guard CodeIssuer.isValidName(name) else {
            count("issuer_key_revoke", "invalid")
            throw APIError.badRequest("An issuer key's name has 1 to 64 letters, digits, '-', '_' or '.'.", code: "invalid_issuer")
        }
        guard try await issuerKeys.remove(name: name, authority: authority.id) else {
            count("issuer_key_revoke", "unknown")
            throw APIError.notFound("Your health authority has no issuer key of this name.", code: "unknown_issuer")
        }
        count("issuer_key_revoke", "revoked")
        logger.notice("issuer key revoked", metadata: ["issuer": "\(name)", "authority": "\(authority.id)", "officer": "\(officer.subject)"])
        return .noContent(.init())
    }

    /// A key as the contract lists it.
    private static func schema(_ summary: IssuerSummary) -> Components.Schemas.IssuerKey {
        let kind: Components.Schemas.OneTimeCodeKind = switch summary.issuer.kind {
        case .covidShield: .COVIDSHIELD
        case .proteGO: .PROTEGO
        }
        return .init(
            name: summary.issuer.name, kind: kind, region: summary.issuer.region, authority: summary.issuer.authority,
            fingerprint: summary.fingerprint, createdAt: summary.createdAt, createdBy: summary.createdBy, expiresAt: summary.expiresAt,
            lastUsedDay: summary.lastUsedDay.map { StatisticsDay(number: $0).description }
        )
    }
}
