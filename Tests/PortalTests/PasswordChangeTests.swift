import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Portal

/// An officer changes their own password.
@Suite struct PasswordChangeTests {
    /// Any signed-in officer of a local account may change their password; their other sessions end, this one goes on.
    @Test(arguments: TestDatabase.all)
    func aChangeEndsTheOtherSessions(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let anna = try await h.signedIn("anna")
            let elsewhere = h.browser()
            try #require(try await elsewhere.signIn("anna", PortalHarness.password).status == 303)
            #expect(try await anna.get("/").text.contains(#"href="/password""#))
            let page = try await anna.get("/password")
            #expect(!page.text.contains(#"id="forced""#))
            let forged = try await anna.post("/password", [("current", PortalHarness.password), ("new", "a new long password"), ("repeat", "a new long password")])
            Covers.status(403, of: "POST /password", forged, error: "form-expired")
            #expect(try await h.browser().signIn("anna", PortalHarness.password).status == 303)

            #expect(try await anna.changePassword(from: PortalHarness.password, to: "a new long password").status == 303)
            #expect(try await anna.get("/").status == 200)
            #expect(try await elsewhere.get("/").header("Location") == "/login?notice=ended")
            #expect(try await h.rows("portal_sessions") == 1)
        }
    }

    /// Guesses of the current password count against the name's sign-in attempts: a session left open does not let
    /// anyone guess the password without limit.
    @Test(arguments: TestDatabase.all)
    func guessesOfTheCurrentPasswordAreThrottled(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, portal: ["LOGIN_ATTEMPTS": "2", "LOGIN_ATTEMPT_WINDOW": "10m"]) { h in
            let anna = try await h.signedIn("anna")
            for _ in 1...2 { #expect(try await anna.changePassword(from: "a guess", to: "a new long password").status == 401) }
            let throttled = try await anna.changePassword(from: PortalHarness.password, to: "a new long password")
            Covers.status(429, of: "POST /password", throttled)
            #expect(throttled.header("Retry-After") == "600")
            #expect(try await h.browser().signIn("anna", "a new long password").status == 429)
            h.clock.advance(by: 600)
            #expect(try await anna.changePassword(from: PortalHarness.password, to: "a new long password").status == 303)
        }
    }

    @Test(arguments: TestDatabase.all)
    func thePasswordPageNeedsASession(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let page = try await h.browser().get("/password")
            Covers.status(303, of: "GET /password", page)
            #expect(page.header("Location") == "/login")
        }
    }
}
