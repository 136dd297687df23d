import Foundation
import Hummingbird

/// The portal's cookies and their attributes: HttpOnly always, SameSite=Strict for the session, Secure when
/// configured. With Secure the session cookie takes the `__Host-` prefix, which browsers accept only from a
/// secure origin, for path `/` and without a domain: no subdomain can set or shadow it.
struct SessionCookies: Sendable {
    let secure: Bool
    let sessionLifetime: Duration

    var sessionName: String { secure ? "__Host-portal_session" : "portal_session" }
    /// Double-submit token of the login form (no session exists yet to hold one).
    let loginName = "portal_login"
    /// The language the officer chose with the switcher: a preference, not a credential, kept a year.
    let languageName = "portal_language"

    func language(_ language: String) -> Cookie {
        Cookie(name: languageName, value: language, maxAge: 365 * 86400, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }

    /// The `state` of an OIDC login in progress, binding the callback to the browser that started it.
    let oidcStateName = "portal_oidc_state"

    func session(_ value: String) -> Cookie {
        Cookie(name: sessionName, value: value, maxAge: Int(sessionLifetime.seconds), path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }

    func clearSession() -> Cookie {
        Cookie(name: sessionName, value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }

    func login(_ value: String) -> Cookie {
        Cookie(name: loginName, value: value, maxAge: 3600, path: "/login", secure: secure, httpOnly: true, sameSite: .strict)
    }

    func clearLogin() -> Cookie {
        Cookie(name: loginName, value: "", maxAge: 0, path: "/login", secure: secure, httpOnly: true, sameSite: .strict)
    }

    /// Lax, not Strict: the provider sends the browser back with a cross-site navigation, which carries only
    /// Lax cookies. The cookie alone opens nothing; it must match the one-time state in the database.
    func oidcState(_ value: String) -> Cookie {
        Cookie(name: oidcStateName, value: value, maxAge: 600, path: "/login/oidc", secure: secure, httpOnly: true, sameSite: .lax)
    }

    func clearOIDCState() -> Cookie {
        Cookie(name: oidcStateName, value: "", maxAge: 0, path: "/login/oidc", secure: secure, httpOnly: true, sameSite: .lax)
    }
}
