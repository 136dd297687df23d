import ExposureCore
import ExposureTestSupport
import Foundation
@testable import PortalDomain
import Testing
@testable import Portal

/// A session gets a new id and CSRF token whenever a sign-in step completes (the second factor, setting up an
/// authenticator app, a new password): a cookie captured before the step (over a shoulder, from a shared computer, by
/// a planted cookie) is refused after it, and the old page's CSRF token no longer posts a form.
@Suite struct SessionRotationTests {
    /// What an attacker holds after copying the officer's cookies: a browser of their own with them.
    static func copy(of browser: PortalBrowser, _ h: PortalHarness) -> PortalBrowser {
        let attacker = h.browser()
        for (name, value) in browser.cookies { attacker.setCookie(name, value) }
        return attacker
    }

    static func sessionCookie(_ browser: PortalBrowser) -> String? { browser.cookies.first { $0.key.hasSuffix("portal_session") }?.value }

    /// The attack of issue #59: a cookie taken after the password, before the code, is not signed in once the officer
    /// types the code.
    @Test(arguments: TestDatabase.all)
    func aCookieCapturedBeforeTheSecondFactorIsRefusedAfterIt(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let check = try await TwoFactorHelp.enrolledSupervisor(h, "sofia").check
            h.clock.advance(by: 60)
            let sofia = h.browser()
            #expect(try await sofia.signIn("sofia", PortalHarness.password).header("Location") == "/login/code")
            let captured = Self.copy(of: sofia, h)
            let before = try #require(Self.sessionCookie(sofia))
            let page = try await sofia.get("/login/code")
            let passed = try await sofia.post("/login/code", [("csrf", try PortalBrowser.csrf(in: page)), ("code", check.code(step: TOTPCheck.step(at: h.clock.now())))])
            #expect(passed.header("Location") == "/")
            #expect(Self.sessionCookie(sofia) != nil && Self.sessionCookie(sofia) != before)
            #expect(try await sofia.get("/officers").status == 200)
            // The captured cookie: its session is gone, not signed in.
            #expect(try await captured.get("/officers").header("Location") == "/login?notice=ended")
            // The page before the step carried the old CSRF token: it posts no form now.
            let stale = try await sofia.post("/logout", [("csrf", try PortalBrowser.csrf(in: page))])
            #expect(stale.status == 403)
            #expect(try await sofia.get("/officers").status == 200)
        }
    }

    /// Setting up an authenticator app completes a step as well: the cookie of the password step is refused after it.
    @Test(arguments: TestDatabase.all)
    func aCookieCapturedBeforeTheEnrolmentIsRefusedAfterIt(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            try await h.addOfficer("sofia", roles: "c19supervisor")
            let sofia = h.browser()
            #expect(try await sofia.signIn("sofia", PortalHarness.password).header("Location") == "/totp")
            let captured = Self.copy(of: sofia, h)
            let page = try await sofia.get("/totp")
            let app = try TwoFactorHelp.check(in: page)
            let confirmed = try await sofia.post("/totp", [("csrf", try PortalBrowser.csrf(in: page)), ("code", app.code(step: TOTPCheck.step(at: h.clock.now())))])
            #expect(confirmed.status == 200)
            // The recovery-codes page carries the new session's token.
            #expect(try PortalBrowser.csrf(in: confirmed) != PortalBrowser.csrf(in: page))
            #expect(try await sofia.get("/officers").status == 200)
            #expect(try await captured.get("/officers").header("Location") == "/login?notice=ended")
        }
    }

    /// A password change, forced or chosen, ends the session id that knew the old password, this browser's included:
    /// it carries on under a new one.
    @Test(arguments: TestDatabase.all)
    func aCookieCapturedBeforeAPasswordChangeIsRefusedAfterIt(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let anna = try await h.signedIn("anna")
            let captured = Self.copy(of: anna, h)
            let page = try await anna.get("/password")
            #expect(try await anna.changePassword(from: PortalHarness.password, to: "a new long password").header("Location") == "/")
            #expect(try await anna.get("/").status == 200)
            #expect(try await captured.get("/").header("Location") == "/login?notice=ended")
            #expect(try await anna.post("/logout", [("csrf", try PortalBrowser.csrf(in: page))]).status == 403)
            #expect(try await h.rows("portal_sessions") == 1)
        }
    }
}
