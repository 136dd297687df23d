import ExposureCore
import ExposureTestSupport
import Foundation
@testable import PortalDomain
import Testing
@testable import Portal
@testable import VerificationDomain

@Suite struct LoginTests {
    @Test(arguments: TestDatabase.all)
    func anOfficerSignsInAndSeesTheStartPage(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            try await h.addOfficer("anna")
            let browser = h.browser()
            let unauthenticated = try await browser.get("/")
            Covers.status(303, of: "GET /", unauthenticated)
            #expect(unauthenticated.header("Location") == "/login")

            let loginPage = try await browser.get("/login")
            Covers.status(200, of: "GET /login", loginPage)
            #expect(loginPage.text.contains("Sign in"))
            let signedIn = try await browser.post("/login", [("csrf", try PortalBrowser.csrf(in: loginPage)), ("username", "anna"), ("password", PortalHarness.password)])
            Covers.status(303, of: "POST /login", signedIn)
            #expect(signedIn.header("Location") == "/")
            let cookie = try #require(signedIn.headers["Set-Cookie"].first { $0.hasPrefix("portal_session=") })
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Strict"))
            #expect(cookie.contains("Path=/"))
            #expect(!cookie.contains("Secure"))

            let start = try await browser.get("/")
            Covers.status(200, of: "GET /", start)
            #expect(start.text.contains(#"id="officer">anna<"#))
            #expect(start.header("Cache-Control") == "no-store")
            #expect(start.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
            // A plain-http PUBLIC_URL (development): no HSTS, which would lock the browser out of http://localhost.
            #expect(start.header("Strict-Transport-Security") == nil)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aWrongPasswordAndAnUnknownUserGetTheSameAnswer(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            try await h.addOfficer("anna")
            let browser = h.browser()
            let wrong = try await browser.signIn("anna", "not the password")
            Covers.status(401, of: "POST /login", wrong)
            #expect(wrong.text.contains("The user name or password is wrong"))
            #expect(browser.cookies["portal_session"] == nil)
            let unknown = try await browser.signIn("nobody", PortalHarness.password)
            #expect(unknown.status == 401)
            #expect(unknown.text.contains("The user name or password is wrong"))
            // The name typed is kept, the password is not echoed.
            #expect(wrong.text.contains(#"value="anna""#))
            #expect(!wrong.text.contains("not the password"))
            try #require(try await browser.get("/").status == 303)
        }
    }

    /// A name no account can have (a NUL byte, which PostgreSQL refuses in a query; too long; a space) is answered as
    /// an unknown user, not with an error page.
    @Test(arguments: TestDatabase.all)
    func aNameInNoAccountsFormIsAnUnknownUser(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            try await h.addOfficer("anna")
            for name in ["an\u{0}na", String(repeating: "a", count: 65), "an na", "änna"] {
                let response = try await h.browser().signIn(name, PortalHarness.password)
                #expect(response.status == 401, "\(name.debugDescription)")
                #expect(response.text.contains("The user name or password is wrong"), "\(name.debugDescription)")
            }
        }
    }

    /// A sign-in stores its session only while the account still has the password hash it checked and is enabled:
    /// an administrator's `set-password` or `disable` during the password check leaves it without a session.
    @Test(arguments: TestDatabase.all)
    func aSignInGetsNoSessionOnceTheAccountChangedDuringItsCheck(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            try await h.addOfficer("anna")
            let users = UserStore(database: h.database)
            let sessions = SessionStore(database: h.database)
            let checked = try #require(try await users.find(name: "anna")).passwordHash
            func session(_ n: Int) -> PortalSession {
                PortalSession(
                    idHash: SecretHash.sha256Hex("session-\(n)"), officer: Officer(name: "anna", roles: ["c19hotline"], source: .local, authority: "default"),
                    csrfToken: "csrf", createdAt: h.clock.now().epochSeconds, expiresAt: h.clock.now().epochSeconds + 3600, oidcTokens: nil
                )
            }
            #expect(try await sessions.create(session(1), whileAccountHasPasswordHash: checked))
            #expect(try await sessions.find(idHash: session(1).idHash, now: h.clock.now()) != nil)
            try await h.users(["set-password", "anna"], password: "another long password")
            #expect(try await !sessions.create(session(2), whileAccountHasPasswordHash: checked))
            let current = try #require(try await users.find(name: "anna")).passwordHash
            try await h.users(["disable", "anna"])
            #expect(try await !sessions.create(session(3), whileAccountHasPasswordHash: current))
            for n in [2, 3] { #expect(try await sessions.find(idHash: session(n).idHash, now: h.clock.now()) == nil) }
        }
    }

    @Test(arguments: TestDatabase.all)
    func aNameOutOfAttemptsIsRefusedEvenWithTheRightPasswordUntilItsWindowEnds(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, portal: ["LOGIN_ATTEMPTS": "3", "LOGIN_ATTEMPT_WINDOW": "10m"]) { h in
            try await h.addOfficer("anna")
            let outcomes = ["signed_in", "refused", "throttled"]
            func signIns() async throws -> [Double] {
                let metrics = try await h.management.get("/metrics").text
                return outcomes.map { PrometheusText.count(in: metrics, name: "portal_sign_ins_total", labels: ["outcome": $0]) }
            }
            let before = try await signIns()
            let browser = h.browser()
            for _ in 1...3 { try #require(try await browser.signIn("anna", "a guess").status == 401) }
            h.clock.advance(by: 60)
            let throttled = try await browser.signIn("anna", PortalHarness.password)
            Covers.status(429, of: "POST /login", throttled)
            #expect(throttled.header("Retry-After") == "540")
            #expect(throttled.text.contains("too many sign-in attempts with this user name. Please try again in 9 minutes."))
            #expect(throttled.text.contains(#"value="anna""#))
            #expect(browser.cookies["portal_session"] == nil)
            try #require(try await browser.get("/").status == 303)
            // Another name is not affected.
            try await h.addOfficer("bert")
            try #require(try await h.browser().signIn("bert", PortalHarness.password).status == 303)

            h.clock.advance(by: 539)
            try #require(try await browser.signIn("anna", PortalHarness.password).status == 429)
            h.clock.advance(by: 1)
            let signedIn = try await browser.signIn("anna", PortalHarness.password)
            #expect(signedIn.status == 303)
            #expect(try await browser.get("/").status == 200)
            // Other tests in the process sign in too: at least this test's own, by outcome.
            let after = try await signIns()
            for (index, added) in [2.0, 3, 2].enumerated() {
                #expect(after[index] >= before[index] + added, "\(outcomes[index])")
            }
        }
    }

    @Test(arguments: TestDatabase.all)
    func aSuccessfulSignInStartsTheCountAgain(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, portal: ["LOGIN_ATTEMPTS": "3", "LOGIN_ATTEMPT_WINDOW": "10m"]) { h in
            try await h.addOfficer("anna")
            for _ in 1...2 { try #require(try await h.browser().signIn("anna", "a typo").status == 401) }
            try #require(try await h.browser().signIn("anna", PortalHarness.password).status == 303)
            for _ in 1...2 { try #require(try await h.browser().signIn("anna", "a typo").status == 401) }
            #expect(try await h.browser().signIn("anna", PortalHarness.password).status == 303)
        }
    }

    @Test(arguments: TestDatabase.all)
    func anAdministratorSettingAPasswordOrEnablingTheAccountLiftsTheLimit(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, portal: ["LOGIN_ATTEMPTS": "2", "LOGIN_ATTEMPT_WINDOW": "15m"]) { h in
            try await h.addOfficer("anna")
            for _ in 1...2 { try #require(try await h.browser().signIn("anna", "forgotten").status == 401) }
            try #require(try await h.browser().signIn("anna", PortalHarness.password).status == 429)
            let output = try await h.users(["set-password", "anna"], password: "another long passphrase")
            #expect(output.contains("sign-in attempts count from zero"))
            #expect(try await h.browser().signIn("anna", "another long passphrase").status == 303)

            try await h.addOfficer("bert")
            for _ in 1...3 { _ = try await h.browser().signIn("bert", "a guess") }
            try #require(try await h.browser().signIn("bert", PortalHarness.password).status == 429)
            try await h.users(["disable", "bert"])
            try await h.users(["enable", "bert"])
            #expect(try await h.browser().signIn("bert", PortalHarness.password).status == 303)
            // Another name's count is untouched.
            try await h.addOfficer("carla")
            for _ in 1...2 { try #require(try await h.browser().signIn("carla", "a guess").status == 401) }
            try await h.users(["enable", "bert"])
            #expect(try await h.browser().signIn("carla", PortalHarness.password).status == 429)
        }
    }

    @Test(arguments: TestDatabase.all)
    func anUnknownNameIsThrottledLikeAKnownOne(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, portal: ["LOGIN_ATTEMPTS": "2", "LOGIN_ATTEMPT_WINDOW": "5m"]) { h in
            try await h.addOfficer("anna")
            var answers: [String: [Int]] = [:]
            for name in ["anna", "nobody"] {
                for _ in 1...3 { answers[name, default: []].append(try await h.browser().signIn(name, "a guess").status) }
            }
            #expect(answers["anna"] == [401, 401, 429])
            #expect(answers["nobody"] == answers["anna"])
        }
    }

    @Test(arguments: TestDatabase.all)
    func parallelGuessesCannotExceedTheLimit(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, portal: ["LOGIN_ATTEMPTS": "4", "LOGIN_ATTEMPT_WINDOW": "10m"]) { h in
            try await h.addOfficer("anna")
            // Every attempt is counted before its password is checked, so requests running bcrypt side by side
            // still get four checks between them.
            let statuses = try await concurrently(12) { try await h.browser().signIn("anna", "a guess").status }
            #expect(statuses.filter { $0 == 401 }.count == 4)
            #expect(statuses.filter { $0 == 429 }.count == 8)
        }
    }

    @Test(arguments: TestDatabase.all)
    func endedWindowsAreCleanedUp(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let throttle = SignInThrottle(attempts: 5, window: .seconds(600))
            let store = SignInAttemptStore(database: h.database)
            let first = try await store.count(name: "a", now: h.clock.now(), throttle: throttle)
            #expect(first == .init(number: 1, windowStart: h.clock.now().epochSeconds))
            #expect(try await store.count(name: "a", now: h.clock.now(), throttle: throttle).number == 2)
            h.clock.advance(by: 300)
            _ = try await store.count(name: "b", now: h.clock.now(), throttle: throttle)
            h.clock.advance(by: 300)
            #expect(try await store.deleteExpired(now: h.clock.now(), throttle: throttle) == 1)
            // "b" is still in its window; "a" starts a new one.
            #expect(try await store.count(name: "b", now: h.clock.now(), throttle: throttle).number == 2)
            #expect(try await store.count(name: "a", now: h.clock.now(), throttle: throttle).number == 1)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aDisabledOfficerCannotSignInAndLosesOpenSessions(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let open = try await h.signedIn("bert")
            try #require(try await open.get("/").status == 200)
            let output = try await h.users(["disable", "bert"])
            #expect(output.contains("ended 1 session"))
            let kicked = try await open.get("/")
            #expect(kicked.status == 303)
            #expect(kicked.header("Location") == "/login?notice=ended")
            let refused = try await h.browser().signIn("bert", PortalHarness.password)
            #expect(refused.status == 401)
            try await h.users(["enable", "bert"])
            try #require(try await h.browser().signIn("bert", PortalHarness.password).status == 303)
        }
    }

    @Test(arguments: TestDatabase.all)
    func changingThePasswordEndsSessionsAndTheOldPasswordStopsWorking(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let open = try await h.signedIn("carla")
            try await h.users(["set-password", "carla"], password: "another long passphrase")
            try #require(try await open.get("/").status == 303)
            try #require(try await h.browser().signIn("carla", PortalHarness.password).status == 401)
            try #require(try await h.browser().signIn("carla", "another long passphrase").status == 303)
        }
    }

    @Test(arguments: TestDatabase.all)
    func theLoginFormNeedsItsCSRFToken(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            try await h.addOfficer("anna")
            let browser = h.browser()
            _ = try await browser.get("/login")
            // A cross-site form knows neither the cookie's token nor sends the cookie: both fail.
            let forged = try await browser.post("/login", [("csrf", "forged"), ("username", "anna"), ("password", PortalHarness.password)])
            Covers.status(403, of: "POST /login", forged, error: "form-expired")
            let fresh = h.browser()
            let noCookie = try await fresh.post("/login", [("username", "anna"), ("password", PortalHarness.password)])
            #expect(noCookie.status == 403)
            #expect(fresh.cookies["portal_session"] == nil)
            #expect(try await h.rows("portal_sessions") == 0)
        }
    }

    @Test(arguments: TestDatabase.all)
    func sessionsEndAfterFourHours(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let browser = try await h.signedIn("dora")
            h.clock.advance(by: 4 * 3600 - 5)
            try #require(try await browser.get("/").status == 200)
            h.clock.advance(by: 10)
            let expired = try await browser.get("/")
            #expect(expired.status == 303)
            #expect(expired.header("Location") == "/login?notice=ended")
            let login = try await browser.get("/login?notice=ended")
            #expect(login.text.contains("Your session has ended"))
            // Forms of the dead session do not work either.
            let issued = try await browser.post("/teletan", [("csrf", "x"), ("type", "TEST")])
            Covers.status(303, of: "POST /teletan", issued)
            #expect(try await h.auditRows().isEmpty)
        }
    }

    @Test(arguments: TestDatabase.all)
    func signingOutEndsTheSessionOnTheServer(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let browser = try await h.signedIn("emil")
            let sessionCookie = try #require(browser.cookies["portal_session"])
            let start = try await browser.get("/")
            // Signing out is a form with the session's CSRF token too.
            let forged = try await browser.post("/logout", [("csrf", "forged")])
            Covers.status(403, of: "POST /logout", forged, error: "form-expired")
            #expect(try await h.rows("portal_sessions") == 1)
            let out = try await browser.post("/logout", [("csrf", try PortalBrowser.csrf(in: start))])
            Covers.status(303, of: "POST /logout", out)
            #expect(out.header("Location") == "/login?notice=signed-out")
            #expect(browser.cookies["portal_session"] == nil)
            // The old cookie, replayed, opens nothing.
            let replay = h.browser()
            replay.setCookie("portal_session", sessionCookie)
            try #require(try await replay.get("/").status == 303)
        }
    }

    @Test(arguments: TestDatabase.all)
    func pagesSpeakGermanWhenTheBrowserPrefersIt(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let german = try await h.browser(language: "de-DE,de;q=0.9,en;q=0.8").get("/login")
            #expect(german.text.contains(#"<html lang="de">"#))
            #expect(german.text.contains("Anmelden"))
            #expect(german.text.contains("Benutzername"))
            let browser = try await h.signedIn("frida", language: "de")
            let start = try await browser.get("/")
            #expect(start.text.contains("teleTAN für einen positiven Test erzeugen"))
            #expect(start.text.contains("Gesundheitsamt Heidelberg"))
            let page = try await browser.issue("EVENT", healthAuthority: "1.08.2.12.")
            #expect(page.text.contains("Gültig für 2 Tage. Der Code wird nach 10 Minuten ausgeblendet."))
            #expect(page.text.contains("Kopieren"))
            let english = try await h.browser(language: "es-ES, en;q=0.5, de;q=0.4").get("/login")
            #expect(english.text.contains(#"<html lang="en">"#))
        }
    }
}
