import ExposureCore
import Foundation
import Hummingbird
import Metrics
import PortalDomain

/// The start page, teleTAN issuance and the one-time codes of other app families.
extension PortalWeb {
    func startPage(_ request: Request) async throws -> Response {
        let current: PortalSession
        switch try await activeSession(request, otherwise: redirect("/login")) {
        case .closed(let elsewhere): return elsewhere
        case .open(let session): current = session
        }
        let language = language(request)
        let texts = language.texts
        // What the officer's authority may issue (every kind when verification cannot say: it refuses the rest).
        let families = await issuableFamilies(of: current)
        let teleTANs = families?.contains("cwa") ?? true
        let canTest = teleTANs && current.officer.may(issue: .test)
        let canEvent = teleTANs && current.officer.may(issue: .event)
        var values: [String: Any] = [:]
        if canTest { values["canTest"] = true }
        if canEvent { values["canEvent"] = true }
        // The other families' codes the operator enabled, for an officer with the role in an authority that issues them.
        let kinds = configuration.codeKinds.filter { kind in
            current.officer.may(issue: kind) && families?.contains(kind.family) ?? true
        }
        let mayIssueSomething = current.officer.may(issue: .test) || current.officer.may(issue: .event)
            || configuration.codeKinds.contains(where: current.officer.may(issue:))
        if !canTest && !canEvent && kinds.isEmpty {
            values[mayIssueSomething ? "authorityIssuesNothing" : "noRoles"] = true
        }
        let codes = kinds.map { kind -> [String: Any] in
            switch kind {
            case .covidShield:
                ["kind": kind.rawValue, "id": "covidshield", "heading": texts.covidShieldHeading, "hint": texts.covidShieldHint, "button": texts.covidShieldButton]
            case .proteGO:
                ["kind": kind.rawValue, "id": "protego", "heading": texts.proteGOHeading, "hint": texts.proteGOHint, "button": texts.proteGOButton]
            }
        }
        if !codes.isEmpty { values["codes"] = codes }
        if !configuration.healthAuthorities.isEmpty {
            values["hasAuthorities"] = true
            values["authorities"] = configuration.healthAuthorities.map { ["number": $0.number, "label": $0.label] }
        }
        return pages.render("start", language: language, title: texts.startTitle, session: current, values: values)
    }

    /// The families the officer's health authority may issue as verification last said; nil when it could not say.
    /// The start page never fails for it: a token that cannot be had now (a provider down) only shows every form.
    func issuableFamilies(of current: PortalSession) async -> Set<String>? {
        guard let id = current.officer.authority else { return nil }
        return await authorityCache.families(of: id) { try? await bearer(for: current) }
    }

    /// Issues a teleTAN and shows it once. The answer to this POST is the only place the code ever appears:
    /// it is not stored, not logged, not cached, and no URL shows it again.
    func issueTeleTAN(_ request: Request) async throws -> Response {
        let current: PortalSession
        switch try await activeSession(request, otherwise: signInAgain(.ended)) {
        case .closed(let elsewhere): return elsewhere
        case .open(let session): current = session
        }
        let fields = try await form(request)
        try requireCSRF(fields, expected: current.csrfToken)
        // Nothing is asked of verification during maintenance.
        guard !maintenance.isOn else { throw PortalError.maintenance }
        guard let kind = fields["type"].flatMap(TeleTANKind.init(rawValue:)) else { throw PortalError.badRequest }
        guard current.officer.may(issue: kind) else { throw PortalError.forbidden }
        var healthAuthority: HealthAuthority?
        if kind == .event {
            healthAuthority = try eventAuthority(fields["healthAuthority"], officer: current.officer)
        }
        switch try await issueOnce(.teleTAN(kind), healthAuthority: healthAuthority, session: current, { await teleTANs.issue(kind, bearer: $0) }) {
        case .signInAgain(let page):
            return page
        case .issued(let teleTAN):
            return teleTANPage(teleTAN, kind: kind, healthAuthority: healthAuthority, session: current, language: language(request))
        }
    }

    /// The health authority an EVENT teleTAN names: the one the officer chose of `HEALTH_AUTHORITIES` (an authority
    /// that answers for several numbered offices), else the officer's own authority.
    private func eventAuthority(_ chosen: String?, officer: Officer) throws(PortalError) -> HealthAuthority {
        guard !configuration.healthAuthorities.isEmpty else {
            guard let own = officer.authority else { throw PortalError.forbidden }
            return HealthAuthority(number: own)
        }
        guard let listed = configuration.healthAuthorities.first(where: { $0.number == chosen }) else { throw PortalError.badRequest }
        return listed
    }

    /// Issues a one-time code of another app family (`POST /code`, for the kinds the operator enables) and shows it
    /// once, as a teleTAN is shown: the same role as TEST teleTANs, the same limit of one per interval per officer,
    /// the same audit.
    func issueCode(_ request: Request) async throws -> Response {
        let current: PortalSession
        switch try await activeSession(request, otherwise: signInAgain(.ended)) {
        case .closed(let elsewhere): return elsewhere
        case .open(let session): current = session
        }
        let fields = try await form(request)
        try requireCSRF(fields, expected: current.csrfToken)
        // Nothing is asked of verification during maintenance.
        guard !maintenance.isOn else { throw PortalError.maintenance }
        guard let kind = fields["kind"].flatMap(FamilyCodeKind.init(rawValue:)), configuration.codeKinds.contains(kind) else {
            throw PortalError.badRequest
        }
        guard current.officer.may(issue: kind) else { throw PortalError.forbidden }
        switch try await issueOnce(.code(kind), healthAuthority: nil, session: current, { await teleTANs.issue(kind, bearer: $0) }) {
        case .signInAgain(let page):
            return page
        case .issued(let code):
            return codePage(code, kind: kind, session: current, language: language(request))
        }
    }

    /// What came of `issueOnce`.
    enum Issuance<Value> {
        case issued(Value)
        /// The session can issue no more (its officer's credential is gone): this page asks to sign in again.
        case signInAgain(Response)
    }

    /// The steps of every issuance: the officer's one claim per interval, the credential verification checks, the
    /// call, and an audit entry of the outcome (audited before a code is shown: a code that cannot be accounted for is
    /// not handed out). Whenever nothing is issued the claim is given back, so the officer may try again at once.
    private func issueOnce<Value>(
        _ kind: IssuedKind, healthAuthority: HealthAuthority?, session current: PortalSession,
        _ call: (String) async -> TeleTANIssuer.Result<Value>
    ) async throws -> Issuance<Value> {
        let officer = current.officer
        func record(_ outcome: AuditEntry.Outcome) async throws {
            teleTANCounters(kind.rawValue, outcome.rawValue).increment()
            try await audit.record(AuditEntry(
                officer: officer.name, source: officer.source, occurredAt: clock.now().epochSeconds,
                kind: kind, healthAuthority: healthAuthority?.number, outcome: outcome, authority: officer.authority
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
        // Whenever nothing comes of the claim, the officer may try again at once.
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
            return .signInAgain(signInAgain(.ended))
        }

        let outcome = await call(bearer)
        guard case .issued(let value) = outcome else {
            try await releaseClaim()
            switch outcome {
            case .rateLimited:
                try await record(.globalLimited)
                throw PortalError.globalLimited
            case .authorityLimited:
                try await record(.authorityLimited)
                throw PortalError.authorityLimited
            case .refused:
                try await record(.refused)
                throw PortalError.verificationRefused
            default:
                try await record(.failed)
                throw PortalError.unavailable
            }
        }
        try await record(.issued)
        logger.info(kind == .test || kind == .event ? "teleTAN issued" : "one-time code issued", metadata: ["officer": "\(officer.name)", "type": "\(kind.rawValue)"])
        return .issued(value)
    }

    /// The credential verification checks: a fresh portal-signed token for a local account, the provider's
    /// access token for an OIDC account. Nil when there is none (the session cannot issue any more).
    func bearer(for session: PortalSession) async throws -> String? {
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

    private func codePage(_ issued: TeleTANIssuer.IssuedCode, kind: FamilyCodeKind, session: PortalSession, language: Language) -> Response {
        let texts = language.texts
        let displaySeconds = min(Int(configuration.teleTANDisplayTime.seconds), kind.validitySeconds)
        let values: [String: Any] = [
            "code": issued.code,
            "grouped": TeleTANGrouping.grouped(issued.code),
            "kindLabel": Self.label(of: kind, texts),
            "region": issued.region,
            "validity": PortalTexts.fill(texts.validFor, ["duration": texts.duration(seconds: kind.validitySeconds)]),
            "hideAfterSeconds": displaySeconds,
            "hiddenAfter": PortalTexts.fill(texts.hiddenAfter, ["duration": texts.duration(seconds: displaySeconds)]),
        ]
        return pages.render("code", language: language, title: texts.codeTitle, session: session, values: values)
    }

    static func label(of kind: FamilyCodeKind, _ texts: PortalTexts) -> String {
        switch kind {
        case .covidShield: texts.covidShieldHeading
        case .proteGO: texts.proteGOHeading
        }
    }
}
