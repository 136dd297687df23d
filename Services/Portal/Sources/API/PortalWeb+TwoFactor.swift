import ExposureCore
import Foundation
import Hummingbird
import PortalDomain

/// Two-factor sign-in of local accounts: setting up an authenticator app (`/totp`: a QR code of the `otpauth://` URI,
/// the key as text, a code to confirm, then ten recovery codes shown once), and the code after the password
/// (`/login/code`).
extension PortalWeb {
    static let totpIssuer = "ExposureSuite portal"

    /// The step a local session takes after the one it finished (nil: the portal).
    func nextStep(for officer: Officer, secondFactorPending: Bool = false) async throws -> SessionStep? {
        guard officer.source == .local, let account = try await users.find(name: officer.name) else { return nil }
        return SignInSteps.next(
            secondFactorPending: secondFactorPending,
            mustChangePassword: account.mustChangePassword,
            enrolled: try await twoFactor.enrolment(name: officer.name) != nil,
            enrolmentRequired: SignInSteps.enrolmentRequired(roles: account.roles, requiredForOfficers: configuration.totpRequiredForOfficers)
        )
    }

    /// Moves the session on to its next step, under a new id (`rotate`), and answers with where that is.
    func advance(_ session: PortalSession) async throws -> Response {
        let step = try await nextStep(for: session.officer)
        guard let rotated = try await rotate(session, pendingStep: step) else { return signInAgain(.ended) }
        var response = redirect(step?.path ?? "/")
        response.setCookie(cookies.session(rotated.cookie))
        return response
    }

    // MARK: The code after the password

    private func secondFactorSession(_ request: Request, otherwise none: @autoclosure () -> Response) async throws -> Gate {
        switch try await session(request) {
        case .none: return .closed(none())
        case .ended: return .closed(signInAgain(.ended))
        case .active: return .closed(redirect("/"))
        case .pending(let current, .secondFactor): return .open(current)
        case .pending(_, let step): return .closed(redirect(step.path))
        }
    }

    func secondFactorPage(_ request: Request) async throws -> Response {
        switch try await secondFactorSession(request, otherwise: redirect("/login")) {
        case .closed(let elsewhere): return elsewhere
        case .open(let current): return secondFactorForm(request, session: current, error: nil, status: .ok)
        }
    }

    /// A TOTP code (its step not used before) or an unused recovery code. Every attempt counts against the name's
    /// sign-in attempts, which only a passed second factor closes.
    func checkSecondFactor(_ request: Request) async throws -> Response {
        let current: PortalSession
        switch try await secondFactorSession(request, otherwise: signInAgain(.ended)) {
        case .closed(let elsewhere): return elsewhere
        case .open(let session): current = session
        }
        let fields = try await form(request)
        try requireCSRF(fields, expected: current.csrfToken)
        let name = current.officer.name
        let throttle = configuration.signInThrottle
        let now = clock.now()
        let attempt = try await signInAttempts.count(name: name, now: now, throttle: throttle)
        if case .refused(let retryAfter) = throttle.decide(attemptNumber: attempt.number, windowStart: attempt.windowStart, now: now) {
            var response = secondFactorForm(request, session: current, error: throttledText(request, retryAfterSeconds: retryAfter), status: .tooManyRequests)
            response.headers[.retryAfter] = "\(retryAfter)"
            return response
        }
        let typed = (fields["code"] ?? "").trimmingCharacters(in: .whitespaces)
        var passed = false
        var usedRecoveryCode = false
        if let enrolment = try await twoFactor.enrolment(name: name) {
            if typed.count <= 8, typed.allSatisfy(\.isNumber) {
                let check = TOTPCheck(secret: try totpSealer.open(enrolment.sealedSecret, account: name))
                if let step = check.matchingStep(typed, now: now) {
                    // A step used before (a code seen over a shoulder, or sent twice) is refused like a wrong code.
                    passed = try await twoFactor.claim(name: name, step: step)
                }
            } else if let code = RecoveryCodes.normalized(typed) {
                passed = try await twoFactor.useRecoveryCode(name: name, hash: totpSealer.recoveryCodeHash(code, account: name), now: now)
                usedRecoveryCode = passed
            }
        }
        guard passed else {
            logger.notice("second factor refused", metadata: ["officer": "\(name)"])
            signInCounters(SignInOutcome.refused.rawValue).increment()
            return secondFactorForm(request, session: current, error: language(request).accountTexts.secondFactorWrong, status: .unauthorized)
        }
        try await signInAttempts.reset(name: name)
        if usedRecoveryCode { try await recordAdministration(.recoveryCodeUsed, by: current, target: name, detail: nil) }
        logger.info("second factor passed", metadata: ["officer": "\(name)", "recoveryCode": "\(usedRecoveryCode)"])
        return try await advance(current)
    }

    private func secondFactorForm(_ request: Request, session: PortalSession, error: String?, status: HTTPResponse.Status) -> Response {
        let language = language(request)
        var values: [String: Any] = [:]
        if let error { values["error"] = error }
        return pages.render("second-factor", language: language, title: language.accountTexts.secondFactorTitle, session: session, status: status, values: values)
    }

    // MARK: Setting up an authenticator app

    /// A local account's session that is active or in the set-up step.
    private func enrolmentSession(_ request: Request, otherwise none: @autoclosure () -> Response) async throws -> Gate {
        switch try await session(request) {
        case .none: return .closed(none())
        case .ended: return .closed(signInAgain(.ended))
        case .pending(_, let step) where step != .enrolTOTP: return .closed(redirect(step.path))
        case .active(let current), .pending(let current, _):
            guard current.officer.source == .local else { throw PortalError.notFound }
            return .open(current)
        }
    }

    func enrolmentPage(_ request: Request) async throws -> Response {
        let current: PortalSession
        switch try await enrolmentSession(request, otherwise: redirect("/login")) {
        case .closed(let elsewhere): return elsewhere
        case .open(let session): current = session
        }
        // One already set up is replaced only after an operator's `users reset-2fa`.
        if try await twoFactor.enrolment(name: current.officer.name) != nil { return redirect("/") }
        return try await enrolmentForm(request, session: current, error: nil, status: .ok)
    }

    func confirmEnrolment(_ request: Request) async throws -> Response {
        let current: PortalSession
        switch try await enrolmentSession(request, otherwise: signInAgain(.ended)) {
        case .closed(let elsewhere): return elsewhere
        case .open(let session): current = session
        }
        let fields = try await form(request)
        try requireCSRF(fields, expected: current.csrfToken)
        let name = current.officer.name
        guard let sealed = try await sessions.enrolmentSecret(idHash: current.idHash) else {
            // No key was shown to this session (or it was set up already): start again.
            return redirect("/totp")
        }
        let secret = try totpSealer.open(sealed, account: name)
        guard let step = TOTPCheck(secret: secret).matchingStep(fields["code"] ?? "", now: clock.now()) else {
            return try await enrolmentForm(request, session: current, error: language(request).accountTexts.secondFactorWrong, status: .badRequest)
        }
        let codes = RecoveryCodes.generate(using: random)
        let hashes = codes.map { totpSealer.recoveryCodeHash(RecoveryCodes.normalized($0)!, account: name) }
        guard try await twoFactor.enrol(name: name, sealedSecret: sealed, step: step, recoveryCodeHashes: hashes) else { return redirect("/") }
        try await sessions.setEnrolmentSecret(idHash: current.idHash, nil)
        try await recordAdministration(.totpEnrolled, by: current, target: name, detail: nil)
        logger.info("officer set up two-factor sign-in", metadata: ["officer": "\(name)"])
        let next = try await nextStep(for: current.officer)
        guard let rotated = try await rotate(current, pendingStep: next) else { return signInAgain(.ended) }
        let language = language(request)
        var response = pages.render(
            "recovery-codes", language: language, title: language.accountTexts.recoveryCodesTitle, session: rotated.session,
            values: ["codes": codes, "next": next?.path ?? "/"]
        )
        response.setCookie(cookies.session(rotated.cookie))
        return response
    }

    /// The set-up page: the QR code and the key of the session's secret (made on the first visit, kept sealed in the
    /// session until a code confirms it).
    private func enrolmentForm(_ request: Request, session current: PortalSession, error: String?, status: HTTPResponse.Status) async throws -> Response {
        let name = current.officer.name
        let secret: String
        if let sealed = try await sessions.enrolmentSecret(idHash: current.idHash) {
            secret = try totpSealer.open(sealed, account: name)
        } else {
            secret = TOTPCheck.newSecret(using: random)
            try await sessions.setEnrolmentSecret(idHash: current.idHash, try totpSealer.seal(secret, account: name))
        }
        let check = TOTPCheck(secret: secret)
        let uri = check.uri(account: name, issuer: Self.totpIssuer)
        let language = language(request)
        let a = language.accountTexts
        var values: [String: Any] = [
            "qr": try QRCode(text: uri).svg(label: a.totpQRLabel),
            "key": check.base32(account: name, issuer: Self.totpIssuer),
            "uri": uri,
        ]
        if current.pendingStep == .enrolTOTP { values["required"] = true }
        if let error { values["error"] = error }
        return pages.render("totp", language: language, title: a.totpTitle, session: current, status: status, values: values)
    }

    /// "Too many attempts, try again in …" for the password and code forms.
    func throttledText(_ request: Request, retryAfterSeconds: Int64) -> String {
        let texts = language(request).texts
        let minutes = (retryAfterSeconds + 59) / 60
        return PortalTexts.fill(texts.loginThrottled, ["duration": texts.duration(seconds: Int(minutes * 60))])
    }
}
