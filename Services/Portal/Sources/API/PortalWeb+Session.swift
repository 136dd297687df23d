import ExposureCore
import Foundation
import HTTPTypes
import Hummingbird
import PortalDomain

/// What every route needs: the officer's language and session, form fields, CSRF checks, redirects.
extension PortalWeb {
    enum SessionLookup {
        /// No session cookie at all.
        case none
        /// A cookie whose session has ended (timeout, sign-out elsewhere, account disabled).
        case ended
        /// A session that must finish a step (a password change) before anything else: only that step's page and
        /// sign-out serve it. Routes that ask for `.active` treat it as no session.
        case pending(PortalSession, SessionStep)
        case active(PortalSession)
    }

    /// What a route that needs a signed-in officer gets: the session, or the answer that sends the browser elsewhere.
    enum Gate {
        case open(PortalSession)
        case closed(Response)
    }

    static let maxFormBytes = 16 * 1024

    /// The language the officer chose with the switcher, else the one their browser prefers.
    func language(_ request: Request) -> Language {
        request.cookies[cookies.languageName].flatMap { Language(rawValue: $0.value) }
            ?? Language.preferred(acceptLanguage: request.headers[.acceptLanguage])
    }

    func session(_ request: Request) async throws -> SessionLookup {
        guard let value = request.cookies[cookies.sessionName]?.value, !value.isEmpty else { return .none }
        guard let session = try await sessions.find(idHash: SecretHash.sha256Hex(value), now: clock.now()) else { return .ended }
        if let step = session.pendingStep { return .pending(session, step) }
        return .active(session)
    }

    /// The session of a signed-in officer who has finished every step; otherwise `none` without a session, the
    /// sign-in page for an ended one, and the step's page for one with a step to finish.
    func activeSession(_ request: Request, otherwise none: @autoclosure () -> Response) async throws -> Gate {
        let lookup = try await session(request)
        switch lookup {
        case .none: return .closed(none())
        case .ended: return .closed(signInAgain(.ended))
        case .pending(_, let step): return .closed(redirect(step.path))
        case .active(let session): return .open(session)
        }
    }

    /// The local account changed (disabled, or given a new password) while its sign-in checked the password.
    struct AccountChangedDuringSignIn: Error {}

    /// Starts a session for `officer` and returns the response that sets its cookie. A local sign-in passes the
    /// password hash it checked: the session is stored only while the account still has it and is enabled
    /// (otherwise `AccountChangedDuringSignIn`).
    func startSession(
        for officer: Officer, tokens: OIDCSessionTokens?, checkedPasswordHash: String? = nil, pendingStep: SessionStep? = nil, response: Response
    ) async throws -> Response {
        let id = random.bytes(count: 32).hexString
        let now = clock.now()
        let session = PortalSession(
            idHash: SecretHash.sha256Hex(id),
            officer: officer,
            csrfToken: random.bytes(count: 32).hexString,
            createdAt: now.epochSeconds,
            expiresAt: now.addingTimeInterval(configuration.sessionTimeout.seconds).epochSeconds,
            oidcTokens: tokens,
            pendingStep: pendingStep
        )
        guard try await sessions.create(session, whileAccountHasPasswordHash: checkedPasswordHash) else {
            throw AccountChangedDuringSignIn()
        }
        logger.info("officer signed in", metadata: ["officer": "\(officer.name)", "source": "\(officer.source.rawValue)"])
        var response = response
        response.setCookie(cookies.session(id))
        return response
    }

    /// The session after a sign-in step it completed (a second factor, a set-up authenticator, a new password), under a
    /// new id and CSRF token, with the step it takes next; nil when it ended meanwhile. The response that carries on
    /// must set `cookie`: the old id no longer finds the session, so a cookie captured before the step is worth
    /// nothing after it.
    func rotate(_ session: PortalSession, pendingStep: SessionStep?) async throws -> (session: PortalSession, cookie: String)? {
        let id = random.bytes(count: 32).hexString
        let csrfToken = random.bytes(count: 32).hexString
        let idHash = SecretHash.sha256Hex(id)
        guard try await sessions.rotate(idHash: session.idHash, to: idHash, csrfToken: csrfToken, pendingStep: pendingStep) else { return nil }
        let rotated = PortalSession(
            idHash: idHash, officer: session.officer, csrfToken: csrfToken, createdAt: session.createdAt,
            expiresAt: session.expiresAt, oidcTokens: session.oidcTokens, pendingStep: pendingStep
        )
        return (rotated, id)
    }

    /// The fields of a submitted form.
    func form(_ request: Request) async throws -> [String: String] {
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true else {
            throw PortalError.badRequest
        }
        let body = try await request.body.collect(upTo: Self.maxFormBytes)
        return FormEncoding.decode(String(buffer: body))
    }

    /// A form must carry the token its page was rendered with; a forged cross-site form cannot know it.
    func requireCSRF(_ form: [String: String], expected: String?) throws(PortalError) {
        guard let expected, !expected.isEmpty, let sent = form["csrf"], SecretHash.constantTimeEquals(sent, expected) else {
            throw PortalError.formExpired
        }
    }

    /// 303 See Other: after a form, the browser GETs the next page (a reload does not resubmit).
    func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location])
    }

    /// Back to the sign-in page with a fixed notice (never text from the request), dropping a dead cookie.
    func signInAgain(_ notice: LoginNotice?) -> Response {
        var response = redirect(notice.map { "/login?notice=\($0.rawValue)" } ?? "/login")
        response.setCookie(cookies.clearSession())
        return response
    }
}

/// The notices the sign-in page can show, selected by `?notice=`.
enum LoginNotice: String {
    case signedOut = "signed-out"
    case ended
    case oidcFailed = "oidc-failed"

    func text(_ t: PortalTexts) -> String {
        switch self {
        case .signedOut: t.signedOut
        case .ended: t.sessionEnded
        case .oidcFailed: t.oidcFailed
        }
    }
}
