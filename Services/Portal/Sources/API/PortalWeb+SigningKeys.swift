import ExposureCore
import Foundation
import Hummingbird
import PortalDomain

/// Signing keys (`/signing-keys`): the versions of a health authority's key for verification certificates. Its
/// supervisors make a new version and retire old ones, each step audited; verification makes and seals the private
/// half and decides with the officer's own token which authority's keys they may touch. System administrators read
/// every authority's versions.
extension PortalWeb {
    /// `GET /signing-keys`.
    func signingKeysPage(_ request: Request) async throws -> Response {
        try await asSupervisor(request, .signingKeys) { current, scope in
            try await signingKeysList(request, current, scope, notice: nil)
        }
    }

    /// `POST /signing-keys`: the supervisor's authority's next version, which signs from now on.
    func rotateSigningKey(_ request: Request) async throws -> Response {
        try await supervisorPost(request, .signingKeys) { current, _, scope in
            // Making a key is for the authority's own supervisors; a system administrator's view is to read.
            guard case .authority(let authority) = scope else { throw PortalError.forbidden }
            let texts = language(request).signingKeyTexts
            guard let bearer = try await bearer(for: current) else { return signInAgain(.ended) }
            switch await signingKeys.rotate(bearer: bearer) {
            case .done(let made):
                try await officerAudit.record(administration(.signingKeyCreated, by: current, target: made.keyID, detail: nil, authority: authority))
                logger.info("signing key made", metadata: ["officer": "\(current.officer.name)", "key": "\(made.keyID)"])
                return try await signingKeysList(request, current, scope, notice: PageNotice(PortalTexts.fill(texts.createdNotice, ["key": made.keyID]), .ok))
            case .cannotSeal: return try await signingKeysList(request, current, scope, notice: PageNotice(texts.refusedUnavailable, .serviceUnavailable))
            case .unknown, .active, .refused: throw PortalError.verificationRefused
            case .unavailable: throw PortalError.unavailable
            }
        }
    }

    /// `POST /signing-keys/retire` with the version's key id: back to the list with what came of it.
    func retireSigningKey(_ request: Request) async throws -> Response {
        try await supervisorPost(request, .signingKeys) { current, fields, scope in
            guard case .authority(let authority) = scope else { throw PortalError.forbidden }
            let texts = language(request).signingKeyTexts
            guard let keyID = fields["key"], !keyID.isEmpty else { throw PortalError.badRequest }
            guard let bearer = try await bearer(for: current) else { return signInAgain(.ended) }
            switch await signingKeys.retire(keyID: keyID, bearer: bearer) {
            case .done:
                try await officerAudit.record(administration(.signingKeyRetired, by: current, target: keyID, detail: nil, authority: authority))
                logger.info("signing key retired", metadata: ["officer": "\(current.officer.name)", "key": "\(keyID)"])
                return try await signingKeysList(request, current, scope, notice: PageNotice(PortalTexts.fill(texts.retiredNotice, ["key": keyID]), .ok))
            case .active: return try await signingKeysList(request, current, scope, notice: PageNotice(texts.refusedActive, .conflict))
            case .unknown: return try await signingKeysList(request, current, scope, notice: PageNotice(texts.refusedUnknown, .notFound))
            case .cannotSeal, .refused: throw PortalError.verificationRefused
            case .unavailable: throw PortalError.unavailable
            }
        }
    }

    private func signingKeysList(
        _ request: Request, _ current: PortalSession, _ scope: AuthorityScope, notice: PageNotice?
    ) async throws -> Response {
        let language = language(request)
        let texts = language.signingKeyTexts
        let format = language.format
        guard let bearer = try await bearer(for: current) else { return signInAgain(.ended) }
        let keys: [SigningKeyRecord]
        switch await signingKeys.list(bearer: bearer) {
        case .done(let listed): keys = listed
        case .refused, .unknown, .active, .cannotSeal: throw PortalError.verificationRefused
        case .unavailable: throw PortalError.unavailable
        }
        let national = scope == .national
        var values: [String: Any] = [
            "sk": texts,
            "national": national,
            "hasKeys": !keys.isEmpty,
            "keys": keys.map { key -> [String: Any] in
                [
                    "keyID": key.keyID,
                    "authority": key.authority,
                    "state": texts.state(key.state),
                    "stateName": key.state.rawValue,
                    "created": format.minute(epochSeconds: key.createdAt) + (key.createdBy.map { " (\($0))" } ?? ""),
                    "retired": key.retiredAt.map { format.minute(epochSeconds: $0) } ?? "",
                    // Only a published version can be retired: the active one signs, a retired one is gone.
                    "retirable": !national && key.state == .published,
                ]
            },
        ]
        if case .authority(let authority) = scope {
            values["publishedAt"] = PortalTexts.fill(texts.publishedAt, ["path": "/jwks/\(authority)"])
        }
        notice?.add(to: &values)
        return pages.render(
            "signing-keys", language: language, title: national ? texts.titleNational : texts.title, session: current,
            status: notice?.status ?? .ok, values: values
        )
    }
}
