import ExposureCore
import Foundation
import Hummingbird
import PortalDomain

/// Code status (`/codes`): the teleTANs and codes an officer issued in the last 7 days, whether each was used (to the
/// hour), and a way to expire one read to the wrong person; a supervisor may see and expire every officer's of their
/// authority (`?view=authority`). Verification keeps the codes and decides with the officer's own token whose they may
/// see; the page shows a code's kind and times, never the code.
extension PortalWeb {
    /// `GET /codes` and `GET /codes?view=authority`.
    func codesPage(_ request: Request) async throws -> Response {
        switch try await activeSession(request, otherwise: redirect("/login")) {
        case .closed(let elsewhere): return elsewhere
        case .open(let current):
            let texts = language(request).codeStatusTexts
            guard Self.mayCheckCodes(current.officer) else { return refusedCodes(texts.noRole, request, current) }
            let authorityWide: Bool
            switch request.uri.queryParameters["view"].map(String.init) {
            case nil, "mine": authorityWide = false
            case "authority":
                guard current.officer.isSupervisor else { return refusedCodes(texts.supervisorsOnly, request, current) }
                authorityWide = true
            default: throw PortalError.badRequest
            }
            return try await codesPage(request, current, authorityWide: authorityWide, notice: nil)
        }
    }

    /// `POST /codes/expire` with the code's public id: back to the list with what came of it.
    func expireCode(_ request: Request) async throws -> Response {
        switch try await activeSession(request, otherwise: signInAgain(.ended)) {
        case .closed(let elsewhere): return elsewhere
        case .open(let current):
            let fields = try await form(request)
            try requireCSRF(fields, expected: current.csrfToken)
            let texts = language(request).codeStatusTexts
            guard Self.mayCheckCodes(current.officer) else { return refusedCodes(texts.noRole, request, current) }
            guard let id = fields["id"], Codes.isUUIDv4(id) else { throw PortalError.badRequest }
            let authorityWide = fields["view"] == "authority" && current.officer.isSupervisor
            guard let bearer = try await bearer(for: current) else { return signInAgain(.ended) }
            let notice: (text: String, status: HTTPResponse.Status)
            switch await issuedCodes.expire(id: id, bearer: bearer) {
            case .done:
                logger.info("code expired by an officer", metadata: ["officer": "\(current.officer.name)"])
                notice = (texts.expiredNotice, .ok)
            case .notLive: notice = (texts.notLive, .conflict)
            case .unknown: notice = (texts.unknownCode, .notFound)
            case .refused: throw PortalError.verificationRefused
            case .unavailable: throw PortalError.unavailable
            }
            return try await codesPage(request, current, authorityWide: authorityWide, notice: notice)
        }
    }

    /// Officers who issue codes, and supervisors (who may see their officers' without issuing any).
    static func mayCheckCodes(_ officer: Officer) -> Bool {
        officer.may(issue: .test) || officer.may(issue: .event) || FamilyCodeKind.allCases.contains(where: officer.may(issue:)) || officer.isSupervisor
    }

    /// A 403 page that says why this account has no (such) code status, in its language.
    private func refusedCodes(_ reason: String, _ request: Request, _ current: PortalSession) -> Response {
        let language = language(request)
        let title = language.codeStatusTexts.title
        return pages.render(
            "message", language: language, title: title, session: current, status: .forbidden,
            values: ["heading": title, "message": reason, "problem": "forbidden"]
        )
    }

    private func codesPage(
        _ request: Request, _ current: PortalSession, authorityWide: Bool, notice: (text: String, status: HTTPResponse.Status)?
    ) async throws -> Response {
        let language = language(request)
        let texts = language.codeStatusTexts
        let format = language.format
        guard let bearer = try await bearer(for: current) else { return signInAgain(.ended) }
        let codes: [IssuedCodeRecord]
        switch await issuedCodes.list(authorityWide: authorityWide, bearer: bearer) {
        case .done(let listed): codes = listed
        case .refused: throw PortalError.verificationRefused
        case .unknown, .notLive, .unavailable: throw PortalError.unavailable
        }
        var values: [String: Any] = [
            "cs": texts,
            "intro": authorityWide ? texts.authorityIntro : texts.intro,
            "view": authorityWide ? "authority" : "mine",
            "hasCodes": !codes.isEmpty,
            "codes": codes.map { code -> [String: Any] in
                var row: [String: Any] = [
                    "id": code.id,
                    "kind": texts.kinds[code.kind] ?? code.kind,
                    "issued": format.minute(epochSeconds: code.issuedAt),
                    "validUntil": format.minute(epochSeconds: code.validUntil),
                    "officer": code.officer ?? "",
                ]
                switch code.status {
                case .unused:
                    row["status"] = texts.unused
                    row["live"] = true
                case .used:
                    row["status"] = texts.usedAt.replacingOccurrences(of: "{hour}", with: code.usedHour.map { format.minute(epochSeconds: $0) } ?? "")
                case .expired:
                    row["status"] = texts.expired
                }
                return row
            },
        ]
        if authorityWide { values["authorityWide"] = true }
        if current.officer.isSupervisor { values["mayViewAuthority"] = true }
        // What came of an expiry: a notice when it was done, an alert when it was refused.
        if let notice { values[notice.status == .ok ? "notice" : "refusal"] = notice.text }
        return pages.render(
            "codes", language: language, title: authorityWide ? texts.authorityTitle : texts.title, session: current,
            status: notice?.status ?? .ok, values: values
        )
    }
}
