import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Portal

/// The portal's answers that no other test produced: each with the page it shows and what it leaves stored.
@Suite struct PortalStatusTests {
    /// A sign-in form larger than the portal takes is refused before it is read: no session, no attempt counted.
    @Test(arguments: TestDatabase.all)
    func anOversizedSignInFormIs413(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            try await h.addOfficer("anna")
            let browser = h.browser()
            let page = try await browser.get("/login")
            let oversized = try await browser.post("/login", [
                ("csrf", try PortalBrowser.csrf(in: page)), ("username", "anna"), ("password", PortalHarness.password),
                ("padding", String(repeating: "a", count: PortalWeb.maxFormBytes)),
            ])
            // Refused by the core's body limit, in front of the pages: its JSON error.
            Covers.status(413, of: "POST /login", oversized, error: "payload_too_large")
            #expect(browser.cookies["portal_session"] == nil)
            #expect(try await h.rows("portal_sessions") == 0)
            #expect(try await h.rows("portal_sign_in_attempts") == 0)
        }
    }

    /// Signing out with a body that is not a form is a 400, and the session stays open.
    @Test(arguments: TestDatabase.all)
    func aSignOutThatIsNotAFormIs400AndKeepsTheSession(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let anna = try await h.signedIn("anna")
            let token = try PortalBrowser.csrf(in: try await anna.get("/"))
            let asJSON = try await anna.post("/logout", [("csrf", token)], headers: [("Content-Type", "application/json")])
            Covers.status(400, of: "POST /logout", asJSON, error: "bad-request")
            #expect(try await h.rows("portal_sessions") == 1)
            #expect(try await anna.get("/").status == 200)
        }
    }

    /// The sign-in page, asked for by an officer who is signed in, sends them to the start page.
    @Test(arguments: TestDatabase.all)
    func theSignInPageSendsASignedInOfficerHome(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let anna = try await h.signedIn("anna")
            let login = try await anna.get("/login")
            Covers.status(303, of: "GET /login", login)
            #expect(login.header("Location") == "/")
            #expect(try await h.rows("portal_sessions") == 1)
        }
    }

    /// A database that fails under a request is a 500 page that says to try again, with nothing of the error in it,
    /// and the portal works again as soon as the database does.
    @Test(arguments: TestDatabase.all)
    func aDatabaseFailureIsA500PageAndPassesWithIt(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let anna = try await h.signedIn("anna")
            let failed = try await FailureInjection.withoutTable("portal_sessions", in: h.database) {
                try await anna.get("/")
            }
            Covers.status(500, of: "GET /", failed, error: "internal-error")
            #expect(!failed.text.contains("portal_sessions"))
            #expect(try await anna.get("/").status == 200)
        }
    }
}
