import ExposureCore
import Foundation
import Hummingbird
import PortalDomain

/// An officer of a local account changes their own password: whenever they like, and before anything else when a
/// supervisor gave them a temporary one (the session's `changePassword` step).
extension PortalWeb {
    /// The session that may change its password: a local account's, active or in the password step.
    private func ownAccountSession(_ request: Request, otherwise none: @autoclosure () -> Response) async throws -> Gate {
        switch try await session(request) {
        case .none: return .closed(none())
        case .ended: return .closed(signInAgain(.ended))
        case .active(let current), .pending(let current, .changePassword):
            // An identity provider's account changes its password there.
            guard current.officer.source == .local else { throw PortalError.notFound }
            return .open(current)
        case .pending(_, let step): return .closed(redirect(step.path))
        }
    }

    func passwordPage(_ request: Request) async throws -> Response {
        switch try await ownAccountSession(request, otherwise: redirect("/login")) {
        case .closed(let elsewhere): return elsewhere
        case .open(let current): return passwordForm(request, session: current, error: nil, status: .ok)
        }
    }

    func changePassword(_ request: Request) async throws -> Response {
        let current: PortalSession
        switch try await ownAccountSession(request, otherwise: signInAgain(.ended)) {
        case .closed(let elsewhere): return elsewhere
        case .open(let session): current = session
        }
        let fields = try await form(request)
        try requireCSRF(fields, expected: current.csrfToken)
        let a = language(request).accountTexts
        let oldPassword = fields["current"] ?? ""
        let newPassword = fields["new"] ?? ""
        guard newPassword == fields["repeat"] else { return passwordForm(request, session: current, error: a.passwordMismatch, status: .badRequest) }
        if newPassword.count < PasswordPolicy.minimumLength {
            let error = PortalTexts.fill(a.passwordTooShort, ["minimum": "\(PasswordPolicy.minimumLength)"])
            return passwordForm(request, session: current, error: error, status: .badRequest)
        }
        guard newPassword.utf8.count <= PasswordPolicy.maximumLength, oldPassword.utf8.count <= PasswordPolicy.maximumLength else {
            return passwordForm(request, session: current, error: a.passwordTooLong, status: .badRequest)
        }
        guard newPassword != oldPassword else { return passwordForm(request, session: current, error: a.passwordUnchanged, status: .badRequest) }

        // Guesses of the current password (from a session left open) count against the name's sign-in attempts.
        let name = current.officer.name
        let throttle = configuration.signInThrottle
        let now = clock.now()
        let attempt = try await signInAttempts.count(name: name, now: now, throttle: throttle)
        if case .refused(let retryAfter) = throttle.decide(attemptNumber: attempt.number, windowStart: attempt.windowStart, now: now) {
            var response = passwordForm(request, session: current, error: throttledText(request, retryAfterSeconds: retryAfter), status: .tooManyRequests)
            response.headers[.retryAfter] = "\(retryAfter)"
            return response
        }
        let account = try await users.find(name: name)
        guard try await hasher.verify(oldPassword, against: account?.passwordHash), account != nil else {
            logger.notice("password change refused: the current password was wrong", metadata: ["officer": "\(name)"])
            return passwordForm(request, session: current, error: a.currentPasswordWrong, status: .unauthorized)
        }
        guard try await users.setPassword(name: name, passwordHash: try await hasher.hash(newPassword), in: .national, now: clock.now()) else {
            return signInAgain(.ended)
        }
        // Whoever else knew the old password is signed out; this session goes on, its step done.
        let ended = try await sessions.deleteAll(localOfficer: name, except: current.idHash)
        try await signInAttempts.reset(name: name)
        try await recordAdministration(.passwordChanged, by: current, target: name, detail: nil)
        logger.info("officer changed their password", metadata: ["officer": "\(name)", "sessionsEnded": "\(ended)"])
        return try await advance(current)
    }

    private func passwordForm(_ request: Request, session: PortalSession, error: String?, status: HTTPResponse.Status) -> Response {
        let language = language(request)
        let a = language.accountTexts
        var values: [String: Any] = [
            "minimum": PasswordPolicy.minimumLength,
            "rule": PortalTexts.fill(a.passwordRule, ["minimum": "\(PasswordPolicy.minimumLength)"]),
        ]
        if session.pendingStep == .changePassword { values["forced"] = true }
        if let error { values["error"] = error }
        return pages.render("password", language: language, title: a.passwordTitle, session: session, status: status, values: values)
    }
}
