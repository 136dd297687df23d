import ExposureCore
import Foundation
import Hummingbird
import Metrics
import PortalDomain

/// The start page and teleTAN issuance.
extension PortalWeb {
    func startPage(_ request: Request) async throws -> Response {
        let current: PortalSession
        switch try await session(request) {
        case .none: return redirect("/login")
        case .ended: return signInAgain(.ended)
        case .active(let session): current = session
        }
        let language = language(request)
        let texts = language.texts
        let canTest = current.officer.may(issue: .test)
        let canEvent = current.officer.may(issue: .event)
        var values: [String: Any] = [:]
        if canTest { values["canTest"] = true }
        if canEvent { values["canEvent"] = true }
        if !canTest && !canEvent { values["noRoles"] = true }
        if !configuration.healthAuthorities.isEmpty {
            values["hasAuthorities"] = true
            values["authorities"] = configuration.healthAuthorities.map { ["number": $0.number, "label": $0.label] }
        }
        return pages.render("start", language: language, title: texts.startTitle, session: current, values: values)
    }

    /// Issues a teleTAN and shows it once. The answer to this POST is the only place the code ever appears:
    /// it is not stored, not logged, not cached, and no URL shows it again.
    func issueTeleTAN(_ request: Request) async throws -> Response {
        guard case .active(let current) = try await session(request) else { return signInAgain(.ended) }
        let fields = try await form(request)
        try requireCSRF(fields, expected: current.csrfToken)
        guard let kind = fields["type"].flatMap(TeleTANKind.init(rawValue:)) else { throw PortalError.badRequest }
        guard current.officer.may(issue: kind) else { throw PortalError.forbidden }
        var healthAuthority: HealthAuthority?
        if kind == .event {
            guard let chosen = configuration.healthAuthorities.first(where: { $0.number == fields["healthAuthority"] }) else {
                throw PortalError.badRequest
            }
            healthAuthority = chosen
        }
        let officer = current.officer
        func record(_ outcome: AuditEntry.Outcome) async throws {
            teleTANCounters(kind.rawValue, outcome.rawValue).increment()
            try await audit.record(AuditEntry(
                officer: officer.name, source: officer.source, occurredAt: clock.now().epochSeconds,
                kind: kind, healthAuthority: healthAuthority?.number, outcome: outcome
            ))
        }

        let claimed: Int64
        switch try await rateLimits.claim(officer: officer.key, now: clock.now(), interval: configuration.officerInterval) {
        case .refused(let nextAllowedAt):
            try await record(.officerLimited)
            throw PortalError.officerLimited(
                retryAfterSeconds: max(1, nextAllowedAt - clock.now().epochSeconds),
                intervalSeconds: Int64(configuration.officerInterval.seconds)
            )
        case .granted(let until):
            claimed = until
        }
        // Whenever no teleTAN comes of the claim, the officer may try again at once.
        func releaseClaim() async throws {
            try await rateLimits.release(officer: officer.key, claimed: claimed, now: clock.now())
        }

        let token: String?
        do {
            token = try await bearer(for: current)
        } catch {
            try await releaseClaim()
            throw error
        }
        guard let bearer = token else {
            try await releaseClaim()
            try await sessions.delete(idHash: current.idHash)
            return signInAgain(.ended)
        }

        let outcome = await teleTANs.issue(kind, bearer: bearer)
        guard case .issued(let teleTAN) = outcome else {
            try await releaseClaim()
            switch outcome {
            case .rateLimited:
                try await record(.globalLimited)
                throw PortalError.globalLimited
            case .refused:
                try await record(.refused)
                throw PortalError.verificationRefused
            default:
                try await record(.failed)
                throw PortalError.unavailable
            }
        }
        // Audited before it is shown: a teleTAN that cannot be accounted for is not handed out.
        try await record(.issued)
        logger.info("teleTAN issued", metadata: ["officer": "\(officer.name)", "type": "\(kind.rawValue)"])
        return teleTANPage(teleTAN, kind: kind, healthAuthority: healthAuthority, session: current, language: language(request))
    }

    /// The credential verification checks: a fresh portal-signed token for a local account, the provider's
    /// access token for an OIDC account. Nil when there is none (the session cannot issue any more).
    private func bearer(for session: PortalSession) async throws -> String? {
        switch session.officer.source {
        case .local: try await signer?.token(for: session.officer)
        case .oidc: try await currentAccessToken(session)
        }
    }

    private func teleTANPage(_ teleTAN: String, kind: TeleTANKind, healthAuthority: HealthAuthority?, session: PortalSession, language: Language) -> Response {
        let texts = language.texts
        let displaySeconds = Int(configuration.teleTANDisplayTime.seconds)
        let validity = kind == .event ? configuration.teleTANEventValidity : configuration.teleTANTestValidity
        var values: [String: Any] = [
            "code": teleTAN,
            "grouped": TeleTANGrouping.grouped(teleTAN),
            "kindLabel": kind == .event ? texts.kindEvent : texts.kindTest,
            "validity": PortalTexts.fill(texts.validFor, ["duration": texts.duration(seconds: Int(validity.seconds))]),
            "hideAfterSeconds": displaySeconds,
            "hiddenAfter": PortalTexts.fill(texts.hiddenAfter, ["duration": texts.duration(seconds: displaySeconds)]),
        ]
        if let healthAuthority { values["healthAuthority"] = healthAuthority.label }
        return pages.render("teletan", language: language, title: texts.teleTANTitle, session: session, values: values)
    }
}
