import ExposureCore
import ExposureStatistics
import Foundation
import Hummingbird
import PortalDomain

/// Issuer keys (`/issuers`): a supervisor's keys for their health authority's systems that issue one-time codes on
/// verification's issuer listener. Verification keeps them and decides with the supervisor's own token which
/// authority's keys they may touch; the portal shows a new key's token once, and audits every creation and
/// revocation.
extension PortalWeb {
    /// `GET /issuers`.
    func issuerKeysPage(_ request: Request) async throws -> Response {
        try await asSupervisor(request, .issuers) { current, _ in
            try await issuerKeysList(request, current, notice: nil)
        }
    }

    /// `POST /issuers`: a new key from the form's name, kind, region and last day; its token on a page of its own.
    func createIssuerKey(_ request: Request) async throws -> Response {
        try await supervisorPost(request, .issuers) { current, fields, _ in
            let language = language(request)
            let texts = language.issuerKeyTexts
            guard let authority = current.officer.authority else { throw PortalError.forbidden }
            guard let kind = fields["kind"].flatMap(FamilyCodeKind.init(rawValue:)) else { throw PortalError.badRequest }
            let name = fields["name"]?.trimmingCharacters(in: .whitespaces) ?? ""
            let region = fields["region"]?.trimmingCharacters(in: .whitespaces).uppercased()
            // The key works through the whole last day the form names (UTC).
            var expiresAt: Int64?
            if let text = fields["expires"], !text.isEmpty {
                guard let day = StatisticsDay(text), (day.number + 1) * 86400 > clock.now().epochSeconds else {
                    return try await issuerKeysList(request, current, notice: PageNotice(texts.refusedInvalidExpiry, .badRequest))
                }
                expiresAt = (day.number + 1) * 86400
            }
            guard let bearer = try await bearer(for: current) else { return signInAgain(.ended) }
            let asked = IssuerKeyRegister.NewKey(name: name, kind: kind, region: region?.isEmpty == false ? region : nil, expiresAt: expiresAt)
            switch await issuerKeys.create(asked, bearer: bearer) {
            case .done(let created):
                let detail = "\(created.key.kind) \(created.key.region)"
                try await officerAudit.record(administration(.issuerKeyCreated, by: current, target: created.key.name, detail: detail, authority: authority))
                logger.info("issuer key created", metadata: ["officer": "\(current.officer.name)", "issuer": "\(created.key.name)"])
                return pages.render(
                    "issuer-token", language: language, title: texts.tokenTitle, session: current,
                    values: [
                        "ik": texts, "token": created.token, "notice": PortalTexts.fill(texts.tokenNotice, ["name": created.key.name]),
                        "usage": kind == .covidShield ? texts.usageCovidShield : texts.usageProteGO,
                    ]
                )
            case .exists: return try await issuerKeysList(request, current, notice: PageNotice(texts.refusedExists, .conflict))
            case .invalid(let code): return try await issuerKeysList(request, current, notice: PageNotice(Self.refusal(code, texts), .badRequest))
            case .unknown, .refused: throw PortalError.verificationRefused
            case .unavailable: throw PortalError.unavailable
            }
        }
    }

    /// `POST /issuers/revoke` with the key's name: back to the list with what came of it.
    func revokeIssuerKey(_ request: Request) async throws -> Response {
        try await supervisorPost(request, .issuers) { current, fields, _ in
            let texts = language(request).issuerKeyTexts
            guard let authority = current.officer.authority else { throw PortalError.forbidden }
            guard let name = fields["name"], !name.isEmpty else { throw PortalError.badRequest }
            guard let bearer = try await bearer(for: current) else { return signInAgain(.ended) }
            switch await issuerKeys.revoke(name: name, bearer: bearer) {
            case .done:
                try await officerAudit.record(administration(.issuerKeyRevoked, by: current, target: name, detail: nil, authority: authority))
                logger.info("issuer key revoked", metadata: ["officer": "\(current.officer.name)", "issuer": "\(name)"])
                return try await issuerKeysList(request, current, notice: PageNotice(PortalTexts.fill(texts.revokedNotice, ["name": name]), .ok))
            case .unknown, .invalid: return try await issuerKeysList(request, current, notice: PageNotice(texts.refusedUnknown, .notFound))
            case .exists, .refused: throw PortalError.verificationRefused
            case .unavailable: throw PortalError.unavailable
            }
        }
    }

    /// The page's words for verification's refusal of a new key.
    static func refusal(_ code: String, _ texts: IssuerKeyTexts) -> String {
        switch code {
        case "family_not_allowed": texts.refusedFamily
        case "family_disabled": texts.refusedFamilyDisabled
        case "region_not_allowed": texts.refusedRegion
        default: texts.refusedInvalidName
        }
    }

    private func issuerKeysList(
        _ request: Request, _ current: PortalSession, notice: PageNotice?
    ) async throws -> Response {
        let language = language(request)
        let texts = language.issuerKeyTexts
        let format = language.format
        guard let bearer = try await bearer(for: current) else { return signInAgain(.ended) }
        let keys: [IssuerKeyRecord]
        switch await issuerKeys.list(bearer: bearer) {
        case .done(let listed): keys = listed
        case .refused, .exists, .unknown, .invalid: throw PortalError.verificationRefused
        case .unavailable: throw PortalError.unavailable
        }
        // The kinds the supervisor's authority may issue (every kind when verification cannot say: it decides anyway).
        let families = await issuableFamilies(of: current)
        let now = clock.now().epochSeconds
        var values: [String: Any] = [
            "ik": texts,
            "hasKeys": !keys.isEmpty,
            "keys": keys.map { key -> [String: Any] in
                [
                    "name": key.name,
                    "kind": texts.kinds[key.kind] ?? key.kind,
                    "region": key.region,
                    "fingerprint": key.fingerprint,
                    "created": format.minute(epochSeconds: key.createdAt) + (key.createdBy.map { " (\($0))" } ?? ""),
                    "expires": key.expiresAt.map { format.minute(epochSeconds: $0) } ?? texts.never,
                    "expired": key.expiresAt.map { $0 <= now } ?? false,
                    "lastUsed": key.lastUsedDay.flatMap(StatisticsDay.init).map { format.date(day: $0.number) } ?? texts.never,
                ]
            },
            "kinds": FamilyCodeKind.allCases.filter { families?.contains($0.family) ?? true }.map { kind -> [String: Any] in
                ["value": kind.rawValue, "label": texts.kinds[kind.rawValue] ?? kind.rawValue]
            },
        ]
        notice?.add(to: &values)
        return pages.render("issuers", language: language, title: texts.title, session: current, status: notice?.status ?? .ok, values: values)
    }
}
