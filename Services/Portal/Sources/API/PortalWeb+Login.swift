import ExposureCore
import Foundation
import Hummingbird
import Metrics
import PortalDomain

/// Sign-in with a local account, and sign-out.
extension PortalWeb {
    func loginPage(_ request: Request) async throws -> Response {
        switch try await session(request) {
        case .active: return redirect("/")
        case .pending(_, let step): return redirect(step.path)
        case .none, .ended: break
        }
        let notice = request.uri.queryParameters["notice"].flatMap { LoginNotice(rawValue: String($0)) }
        return loginForm(request, notice: notice, failed: false, userName: nil)
    }

    func login(_ request: Request) async throws -> Response {
        guard configuration.localLogin else { throw PortalError.notFound }
        let fields = try await form(request)
        try requireCSRF(fields, expected: request.cookies[cookies.loginName]?.value)
        let name = fields["username"]?.trimmingCharacters(in: .whitespaces) ?? ""
        let password = fields["password"] ?? ""
        guard !name.isEmpty, !password.isEmpty, password.utf8.count <= PasswordPolicy.maximumLength else {
            return loginForm(request, notice: nil, failed: true, userName: name)
        }
        let throttle = configuration.signInThrottle
        let now = clock.now()
        let attempt = try await signInAttempts.count(name: name, now: now, throttle: throttle)
        if case .refused(let retryAfter) = throttle.decide(attemptNumber: attempt.number, windowStart: attempt.windowStart, now: now) {
            if attempt.number == throttle.attempts + 1 { logger.warning("sign-in attempts of one user name exhausted; throttled until its window ends") }
            countSignIn(.throttled)
            return throttledForm(request, userName: name, retryAfterSeconds: retryAfter)
        }
        // A name in no account's form is not looked up (PostgreSQL refuses a NUL byte in a query with an error).
        let user = UserName.isWellFormed(name) ? try await users.find(name: name) : nil
        // A disabled or unknown account costs the same bcrypt work as a wrong password and gets the same answer.
        let usable = user.flatMap { $0.isDisabled ? nil : $0 }
        guard try await hasher.verify(password, against: usable?.passwordHash), let usable else {
            logger.notice("sign-in refused")
            countSignIn(.refused)
            return loginForm(request, notice: nil, failed: true, userName: name)
        }
        // An account with two-factor sign-in continues with its code; a temporary password (a supervisor set it)
        // opens nothing but the page that replaces it; an account that needs two-factor sign-in sets it up first.
        let step = SignInSteps.next(
            secondFactorPending: try await twoFactor.enrolment(name: usable.name) != nil,
            mustChangePassword: usable.mustChangePassword,
            enrolled: false,
            enrolmentRequired: SignInSteps.enrolmentRequired(roles: usable.roles, requiredForOfficers: configuration.totpRequiredForOfficers)
        )
        var response: Response
        do {
            response = try await startSession(
                for: Officer(name: usable.name, roles: usable.roles, source: .local, authority: usable.authority), tokens: nil,
                checkedPasswordHash: usable.passwordHash, pendingStep: step, response: redirect(step?.path ?? "/")
            )
        } catch is AccountChangedDuringSignIn {
            logger.notice("sign-in refused: the account was changed while its password was checked")
            countSignIn(.refused)
            return loginForm(request, notice: nil, failed: true, userName: name)
        }
        // With a second factor to come, the attempts go on counting until it passes.
        if step != .secondFactor { try await signInAttempts.reset(name: name) }
        countSignIn(.signedIn)
        response.setCookie(cookies.clearLogin())
        return response
    }

    func logout(_ request: Request) async throws -> Response {
        let current: PortalSession
        switch try await session(request) {
        case .active(let session), .pending(let session, _): current = session
        case .none, .ended: return signInAgain(nil)
        }
        try requireCSRF(try await form(request), expected: current.csrfToken)
        try await sessions.delete(idHash: current.idHash)
        logger.info("officer signed out", metadata: ["officer": "\(current.officer.name)"])
        return signInAgain(.signedOut)
    }

    enum SignInOutcome: String {
        case signedIn = "signed_in"
        case refused
        /// Out of attempts for the name: a guessing attack, or an officer who forgot the password.
        case throttled
    }

    /// `portal_sign_ins_total{outcome}`: local accounts only (the identity provider counts its own).
    private func countSignIn(_ outcome: SignInOutcome) {
        signInCounters(outcome.rawValue).increment()
    }

    /// The sign-in page saying when the name may try again (429 with `Retry-After`); no password was checked.
    private func throttledForm(_ request: Request, userName: String, retryAfterSeconds: Int64) -> Response {
        let texts = language(request).texts
        // Whole minutes, rounded up: "in 1 minute" rather than "in 0 minutes".
        let minutes = (retryAfterSeconds + 59) / 60
        let message = PortalTexts.fill(texts.loginThrottled, ["duration": texts.duration(seconds: Int(minutes * 60))])
        var response = loginForm(request, notice: nil, error: message, status: .tooManyRequests, userName: userName)
        response.headers[.retryAfter] = "\(retryAfterSeconds)"
        return response
    }

    private func loginForm(_ request: Request, notice: LoginNotice?, failed: Bool, userName: String?) -> Response {
        let texts = language(request).texts
        return loginForm(request, notice: notice, error: failed ? texts.loginFailed : nil, status: failed ? .unauthorized : .ok, userName: userName)
    }

    /// The sign-in page with a fresh double-submit token in a cookie and in the form.
    private func loginForm(_ request: Request, notice: LoginNotice?, error: String?, status: HTTPResponse.Status, userName: String?) -> Response {
        let language = language(request)
        let texts = language.texts
        let token = random.bytes(count: 32).hexString
        var values: [String: Any] = ["loginCSRF": token]
        if configuration.localLogin { values["localLogin"] = true }
        if let oidc { values["oidcName"] = oidc.providerName }
        if let notice { values["notice"] = notice.text(texts) }
        if let error { values["error"] = error }
        if let userName, !userName.isEmpty { values["username"] = userName }
        var response = pages.render("login", language: language, title: texts.loginTitle, session: nil, status: status, values: values)
        response.setCookie(cookies.login(token))
        return response
    }
}
