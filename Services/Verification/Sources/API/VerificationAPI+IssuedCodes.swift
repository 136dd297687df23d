import ExposureCore
import ExposureRules
import Foundation
import VerificationDomain

/// Code status for the portal (openapi/verification.yaml, `/version/v1/codes/issued`): an officer sees whether the
/// teleTANs and codes they read out were used, and expires one read to the wrong person; a supervisor does the same
/// for every officer of their authority.
extension VerificationAPI {
    func listIssuedCodes(_ input: Operations.listIssuedCodes.Input) async throws -> Operations.listIssuedCodes.Output {
        let (officer, authority) = try await officerAndAuthority(endpoint: "codes_issued")
        let scope: IssuedCodeStore.Scope
        switch input.query.scope ?? .mine {
        case .mine:
            scope = .officer(officer.owner, authority: authority.id)
        case .authority:
            guard officer.roles.contains(OfficerRoles.supervisor) else {
                count("codes_issued", "missing_role")
                throw APIError.unauthorized("The token does not carry the role \(OfficerRoles.supervisor) needed for the authority's codes.")
            }
            scope = .authority(authority.id)
        }
        let now = clock.now()
        let codes = try await issuedCodes.recent(scope, since: now.addingTimeInterval(-Double(IssuedCode.listedDays * 86400)))
        count("codes_issued", "listed")
        return .ok(.init(body: .json(.init(codes: codes.compactMap { Self.answer($0, now: now.epochSeconds) }))))
    }

    func expireIssuedCode(_ input: Operations.expireIssuedCode.Input) async throws -> Operations.expireIssuedCode.Output {
        guard case .json(let body) = input.body else { throw APIError.forStatus(.unsupportedMediaType) }
        let (officer, authority) = try await officerAndAuthority(endpoint: "code_expire")
        guard Codes.isUUIDv4(body.id) else {
            count("code_expire", "invalid")
            throw APIError.badRequest("id must be a lower-case UUID v4.", code: "invalid_id")
        }
        // A supervisor may end any code of their authority; an officer only their own.
        let scope: IssuedCodeStore.Scope = officer.roles.contains(OfficerRoles.supervisor)
            ? .authority(authority.id) : .officer(officer.owner, authority: authority.id)
        switch try await issuedCodes.expire(id: body.id, scope, now: clock.now()) {
        case .expired:
            count("code_expire", "expired")
            logger.info("code expired by its officer", metadata: ["officer": "\(officer.subject)", "authority": "\(authority.id)"])
            return .noContent(.init())
        case .notLive:
            count("code_expire", "not_live")
            throw APIError(.conflict, code: "code_not_live", message: "The code was used or had expired; nothing changed.")
        case .unknown:
            count("code_expire", "unknown")
            throw APIError.notFound("No code of yours has this id.", code: "unknown_code")
        }
    }

    /// The code as the contract lists it; nil for a kind the contract does not name (a row a newer version wrote,
    /// read during a rolling upgrade), which is left out rather than passed off as another kind.
    private static func answer(_ code: IssuedCode, now: Int64) -> Components.Schemas.IssuedCode? {
        guard let kind = Components.Schemas.IssuedCode.kindPayload(rawValue: code.kind) else { return nil }
        let status: Components.Schemas.IssuedCode.statusPayload = switch code.status(at: now) {
        case .unused: .unused
        case .used: .used
        case .expired: .expired
        }
        return .init(
            id: code.id, kind: kind, issuedAt: code.issuedAt, validUntil: code.validUntil,
            status: status, usedHour: code.usedHour, officer: code.officer
        )
    }
}
