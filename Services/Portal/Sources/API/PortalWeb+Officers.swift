import ExposureCore
import Foundation
import Hummingbird
import PortalDomain

/// Officer administration for supervisors: the portal's local accounts (an identity provider manages its own). Every
/// change is a POST with the session's CSRF token, checked for the supervisor role on the server, and recorded in the
/// administration audit log (who, what, whom, when; never a password).
extension PortalWeb {
    /// The roles in the order the pages show them.
    static let rolesShown = [OfficerRoles.hotline, OfficerRoles.eventHotline, OfficerRoles.supervisor]

    /// Runs `page` for a GET of a supervisor: signed in, every step finished, a supervisor of an authority (or a
    /// system administrator, on the pages open to them); anyone else gets the sign-in page, their step, or a 403 page.
    /// `page` is given whose rows it may show: the supervisor's authority's, or every authority's.
    func asSupervisor(
        _ request: Request, _ which: SupervisorPage, _ page: (PortalSession, AuthorityScope) async throws -> Response
    ) async throws -> Response {
        switch try await activeSession(request, otherwise: redirect("/login")) {
        case .closed(let elsewhere): return elsewhere
        case .open(let current):
            guard let scope = Self.scope(of: current.officer, on: which) else { return refusedNotSupervisor(which, request, current) }
            if try await lacksSecondFactor(current) { return redirect(SessionStep.enrolTOTP.path) }
            return try await page(current, scope)
        }
    }

    /// Runs `change` for a POST of a page's form: signed in, every step finished, the session's CSRF token (a 403
    /// page otherwise), someone `which` is open to (a 403 page otherwise), with whose rows the change may touch.
    func supervisorPost(
        _ request: Request, _ which: SupervisorPage = .officers, _ change: (PortalSession, [String: String], AuthorityScope) async throws -> Response
    ) async throws -> Response {
        switch try await activeSession(request, otherwise: signInAgain(.ended)) {
        case .closed(let elsewhere): return elsewhere
        case .open(let current):
            let fields = try await form(request)
            try requireCSRF(fields, expected: current.csrfToken)
            guard let scope = Self.scope(of: current.officer, on: which) else { return refusedNotSupervisor(which, request, current) }
            if try await lacksSecondFactor(current) { return redirect(SessionStep.enrolTOTP.path) }
            return try await change(current, fields, scope)
        }
    }

    /// Whose rows `officer` may see on `page`: a supervisor their authority's, a system administrator every
    /// authority's on the pages open to them; nil for anyone else.
    static func scope(of officer: Officer, on page: SupervisorPage) -> AuthorityScope? {
        if page.isForSystemAdministrators, officer.isSystemAdministrator { return .national }
        guard page.isForSupervisors, officer.isSupervisor, let authority = officer.authority else { return nil }
        return .authority(authority)
    }

    /// A local supervisor without two-factor sign-in (given the role while signed in) sets it up before administering.
    private func lacksSecondFactor(_ session: PortalSession) async throws -> Bool {
        guard session.officer.source == .local else { return false }
        return try await twoFactor.enrolment(name: session.officer.name) == nil
    }

    // MARK: Pages

    func officersPage(_ request: Request) async throws -> Response {
        try await asSupervisor(request, .officers) { try await officersList(request, session: $0, scope: $1) }
    }

    private func officersList(_ request: Request, session current: PortalSession, scope: AuthorityScope) async throws -> Response {
        let language = language(request)
        let a = language.accountTexts
        let accounts = try await users.list(in: scope)
        let rows = accounts.map { user -> [String: Any] in
            var state = user.isDisabled ? a.stateDisabled : a.stateActive
            if user.mustChangePassword { state += ", \(a.stateTemporaryPassword)" }
            var row: [String: Any] = [
                "name": user.name,
                "state": state,
                "rolesLegend": PortalTexts.fill(a.rolesOf, ["name": user.name]),
                "roles": Self.rolesShown.map { role -> [String: Any] in
                    var choice: [String: Any] = ["role": role, "label": Self.label(ofRole: role, a)]
                    if user.roles.contains(role) { choice["held"] = true }
                    return choice
                },
            ]
            if user.isDisabled { row["disabled"] = true }
            return row
        }
        var values: [String: Any] = [
            "officers": rows,
            "newRoles": Self.rolesShown.map { ["role": $0, "label": Self.label(ofRole: $0, a)] },
        ]
        if !rows.isEmpty { values["hasOfficers"] = true }
        // The notice of the change just made, for an account that exists (the query names it; the texts are ours).
        if let done = request.uri.queryParameters["done"].map(String.init),
           let name = request.uri.queryParameters["name"].map(String.init), accounts.contains(where: { $0.name == name }) {
            let text: String? = switch done {
            case "disabled": a.doneDisabled
            case "enabled": a.doneEnabled
            case "roles": a.doneRoles
            default: nil
            }
            if let text { values["notice"] = PortalTexts.fill(text, ["name": name]) }
        }
        return pages.render("officers", language: language, title: a.officersTitle, session: current, values: values)
    }

    // MARK: Changes

    /// `POST /officers`: a new account with a temporary password, shown once.
    func addOfficer(_ request: Request) async throws -> Response {
        try await supervisorPost(request) { current, fields, scope in
            let name = fields["name"]?.trimmingCharacters(in: .whitespaces) ?? ""
            guard UserName.isWellFormed(name) else { return refused(.invalidName, request, current) }
            let roles = Self.roles(in: fields)
            let password = PasswordPolicy.generate(using: random)
            let hash = try await hasher.hash(password)
            // The new account joins the supervisor's own authority.
            let audit = administration(.added, by: current, target: name, detail: RoleList.encode(roles), authority: scope.authorityID)
            guard try await users.add(
                name: name, passwordHash: hash, roles: roles, authority: scope.authorityID, temporary: true, now: clock.now(), audit: audit
            ) else {
                return refused(.nameTaken, request, current)
            }
            logger.info("officer added", metadata: ["supervisor": "\(current.officer.name)", "officer": "\(name)"])
            return temporaryPasswordPage(request, session: current, password: password, notice: language(request).accountTexts.temporaryPasswordAdded, name: name)
        }
    }

    /// `POST /officers/disable`: the account can no longer sign in, and its sessions end now.
    func disableOfficer(_ request: Request) async throws -> Response {
        try await supervisorPost(request) { current, fields, scope in
            let name = fields["name"] ?? ""
            if let refusal = OfficerChangeRule.disable(actor: current.officer.name, target: name) { return refused(.refused(refusal), request, current) }
            let audit = administration(.disabled, by: current, target: name, detail: nil, authority: scope.authorityID)
            guard UserName.isWellFormed(name), try await users.setDisabled(name: name, true, in: scope, now: clock.now(), audit: audit) else {
                return refused(.noSuchOfficer, request, current)
            }
            let ended = try await sessions.deleteAll(localOfficer: name)
            logger.info("officer disabled", metadata: ["supervisor": "\(current.officer.name)", "officer": "\(name)", "sessionsEnded": "\(ended)"])
            return redirect("/officers?" + FormEncoding.encode([("done", "disabled"), ("name", name)]))
        }
    }

    /// `POST /officers/enable`: the account may sign in again, its sign-in attempts counting from zero.
    func enableOfficer(_ request: Request) async throws -> Response {
        try await supervisorPost(request) { current, fields, scope in
            let name = fields["name"] ?? ""
            let audit = administration(.enabled, by: current, target: name, detail: nil, authority: scope.authorityID)
            guard UserName.isWellFormed(name), try await users.setDisabled(name: name, false, in: scope, now: clock.now(), audit: audit) else {
                return refused(.noSuchOfficer, request, current)
            }
            try await signInAttempts.reset(name: name)
            logger.info("officer enabled", metadata: ["supervisor": "\(current.officer.name)", "officer": "\(name)"])
            return redirect("/officers?" + FormEncoding.encode([("done", "enabled"), ("name", name)]))
        }
    }

    /// `POST /officers/reset-password`: a new temporary password, shown once; the account's sessions end.
    func resetOfficerPassword(_ request: Request) async throws -> Response {
        try await supervisorPost(request) { current, fields, scope in
            let name = fields["name"] ?? ""
            if let refusal = OfficerChangeRule.resetPassword(actor: current.officer.name, target: name) { return refused(.refused(refusal), request, current) }
            guard UserName.isWellFormed(name) else { return refused(.noSuchOfficer, request, current) }
            let password = PasswordPolicy.generate(using: random)
            let hash = try await hasher.hash(password)
            let audit = administration(.passwordReset, by: current, target: name, detail: nil, authority: scope.authorityID)
            guard try await users.setPassword(name: name, passwordHash: hash, in: scope, temporary: true, now: clock.now(), audit: audit) else {
                return refused(.noSuchOfficer, request, current)
            }
            // Whoever knew the old password must not stay signed in; the officer may sign in with the new one at once.
            let ended = try await sessions.deleteAll(localOfficer: name)
            try await signInAttempts.reset(name: name)
            logger.info("officer given a temporary password", metadata: ["supervisor": "\(current.officer.name)", "officer": "\(name)", "sessionsEnded": "\(ended)"])
            return temporaryPasswordPage(request, session: current, password: password, notice: language(request).accountTexts.temporaryPasswordReset, name: name)
        }
    }

    /// `POST /officers/roles`: the account's roles, for its sessions too from their next request on.
    func changeOfficerRoles(_ request: Request) async throws -> Response {
        try await supervisorPost(request) { current, fields, scope in
            let name = fields["name"] ?? ""
            let roles = Self.roles(in: fields)
            if let refusal = OfficerChangeRule.changeRoles(actor: current.officer.name, target: name, to: roles) { return refused(.refused(refusal), request, current) }
            let audit = administration(.rolesChanged, by: current, target: name, detail: RoleList.encode(roles), authority: scope.authorityID)
            guard UserName.isWellFormed(name), try await users.setRoles(name: name, roles, in: scope, now: clock.now(), audit: audit) else {
                return refused(.noSuchOfficer, request, current)
            }
            try await sessions.setRoles(localOfficer: name, roles)
            logger.info("officer's roles changed", metadata: ["supervisor": "\(current.officer.name)", "officer": "\(name)"])
            return redirect("/officers?" + FormEncoding.encode([("done", "roles"), ("name", name)]))
        }
    }

    // MARK: Helpers

    /// Records a step an officer took on their own account, in their authority's log.
    func recordAdministration(_ action: OfficerAction, by actor: PortalSession, target: String?, detail: String?) async throws {
        try await officerAudit.record(administration(action, by: actor, target: target, detail: detail, authority: actor.officer.authority))
    }

    /// The audit row of a step, for the store to write in the step's own transaction; `authority` is the authority
    /// whose log shows it (that of the account acted on).
    func administration(_ action: OfficerAction, by actor: PortalSession, target: String?, detail: String?, authority: String?) -> OfficerAuditEntry {
        OfficerAuditEntry(
            actor: actor.officer.name, actorSource: actor.officer.source, action: action.rawValue, target: target, detail: detail,
            occurredAt: clock.now().epochSeconds, authority: authority
        )
    }

    /// The roles ticked in a form (`role-<role>=on`); only an authority's roles can be given there, never the system
    /// administrator's.
    static func roles(in fields: [String: String]) -> Set<String> {
        Set(OfficerRoles.authorityRoles.filter { fields["role-\($0)"] != nil })
    }

    static func label(ofRole role: String, _ a: AccountTexts) -> String {
        switch role {
        case OfficerRoles.hotline: "\(a.roleHotline) (\(role))"
        case OfficerRoles.eventHotline: "\(a.roleEventHotline) (\(role))"
        case OfficerRoles.supervisor: "\(a.roleSupervisor) (\(role))"
        default: role
        }
    }

    func refused(_ problem: OfficerAdminProblem, _ request: Request, _ current: PortalSession) -> Response {
        let language = language(request)
        let heading = switch problem {
        case .notSupervisor: language.accountTexts.supervisorsOnlyTitle
        case .notSystemAdministrator: language.administratorTexts.systemAdministratorsOnlyTitle
        default: language.texts.errorTitle
        }
        return pages.render(
            "message", language: language, title: heading, session: current, status: problem.status,
            values: ["heading": heading, "message": problem.message(language), "problem": problem.code]
        )
    }

    private func refusedNotSupervisor(_ page: SupervisorPage, _ request: Request, _ current: PortalSession) -> Response {
        logger.notice("supervisor's page refused: not a supervisor", metadata: ["officer": "\(current.officer.name)", "page": "\(page.rawValue)"])
        return refused(page.isForSupervisors ? .notSupervisor(page) : .notSystemAdministrator, request, current)
    }

    private func temporaryPasswordPage(_ request: Request, session: PortalSession, password: String, notice: String, name: String) -> Response {
        let language = language(request)
        return pages.render(
            "temporary-password", language: language, title: language.accountTexts.temporaryPasswordTitle, session: session,
            values: ["password": password, "notice": PortalTexts.fill(notice, ["name": name])]
        )
    }
}
