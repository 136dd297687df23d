import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Portal

@Suite struct TeleTANIssuanceTests {
    @Test(arguments: TestDatabase.all)
    func anIssuedTeleTANIsShownGroupedAndRegistersAtVerification(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            func issued() async throws -> Double {
                let metrics = try await h.management.get("/metrics")
                return PrometheusText.count(in: metrics.text, name: "portal_teletan_requests_total", labels: ["type": "TEST", "outcome": "issued"])
            }
            let issuedBefore = try await issued()
            let browser = try await h.signedIn("anna", roles: "c19hotline")
            let page = try await browser.issue("TEST")
            Covers.status(200, of: "POST /teletan", page)
            #expect(page.header("Cache-Control") == "no-store")
            let shown = try PortalBrowser.shownTeleTAN(in: page)
            let groups = shown.split(separator: " ")
            #expect(groups.map(\.count) == [3, 3, 4])
            let teleTAN = groups.joined()
            #expect(Codes.isValidTeleTAN(teleTAN))
            #expect(page.text.contains(#"data-hide-after="600""#))
            #expect(page.text.contains("Valid for 1 hour. The code is hidden after 10 minutes."))
            // The code is shown in the answer to the form only: there is no page to come back to.
            try #require(try await browser.get("/teletan").status == 404)

            // The phone's side: the teleTAN becomes a registration token, once.
            let registered = try await h.register(teleTAN: teleTAN)
            #expect(registered.status == 201)
            #expect(Codes.isUUIDv4(registered.json["registrationToken"] as? String ?? ""))
            try #require(try await h.register(teleTAN: teleTAN).status == 400)

            // Audited, without the code.
            let audit = try await h.auditRows()
            #expect(audit == [["officer": "anna", "teletan_type": "TEST", "outcome": "issued"]])
            let everything = try await h.database.withConnection { connection in
                try await connection.raw("SELECT * FROM portal_audit_log").all().map { "\($0)" }.joined()
            }
            #expect(!everything.contains(teleTAN))
            #expect(try await issued() >= issuedBefore + 1)
        }
    }

    @Test(arguments: TestDatabase.all)
    func eventTeleTANsNeedTheirRoleAndAConfiguredHealthAuthority(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let both = try await h.signedIn("anna")
            let start = try await both.get("/")
            #expect(start.text.contains(#"id="issue-test""#))
            #expect(start.text.contains(#"id="issue-event""#))
            #expect(start.text.contains(#"<option value="1.08.2.12.">1.08.2.12. – Gesundheitsamt Heidelberg</option>"#))

            let unknownAuthority = try await both.issue("EVENT", healthAuthority: "9.99.9.99.")
            Covers.status(400, of: "POST /teletan", unknownAuthority, error: "bad-request")
            let event = try await both.issue("EVENT", healthAuthority: "1.08.2.12.")
            #expect(event.status == 200)
            #expect(event.text.contains("Event warning"))
            #expect(event.text.contains("Gesundheitsamt Heidelberg"))
            #expect(event.text.contains("Valid for 2 days."))
            let teleTAN = try PortalBrowser.shownTeleTAN(in: event).replacingOccurrences(of: " ", with: "")
            try #require(try await h.register(teleTAN: teleTAN).status == 201)
            let audit = try await h.auditRows()
            #expect(audit.last == ["officer": "anna", "teletan_type": "EVENT", "health_authority": "1.08.2.12.", "outcome": "issued"])
        }
    }

    @Test(arguments: TestDatabase.all)
    func theStartPageOffersOnlyWhatTheRolesAllow(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let hotline = try await h.signedIn("tim", roles: "c19hotline")
            let start = try await hotline.get("/")
            #expect(start.text.contains(#"id="issue-test""#))
            #expect(!start.text.contains(#"id="issue-event""#))
            // Submitting the missing button anyway is refused by the portal.
            let forbidden = try await hotline.issue("EVENT", healthAuthority: "1.08.2.12.")
            Covers.status(403, of: "POST /teletan", forbidden, error: "forbidden")

            let eventOnly = try await h.signedIn("eva", roles: "c19hotline_event")
            let eventStart = try await eventOnly.get("/")
            #expect(!eventStart.text.contains(#"id="issue-test""#))
            #expect(eventStart.text.contains(#"id="issue-event""#))
            try #require(try await eventOnly.issue("TEST").status == 403)

            let none = try await h.signedIn("nora", roles: "")
            let noneStart = try await none.get("/")
            #expect(noneStart.text.contains(#"id="no-roles""#))
            #expect(!noneStart.text.contains("/teletan"))
            #expect(try await h.auditRows().isEmpty)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aFormWithoutAKnownTypeIsRefusedAndIssuesNothing(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let anna = try await h.signedIn("anna")
            let token = try PortalBrowser.csrf(in: try await anna.get("/"))
            for fields in [[("csrf", token)], [("csrf", token), ("type", "")], [("csrf", token), ("type", "OTHER")], [("csrf", token), ("type", "test")]] {
                let refused = try await anna.post("/teletan", fields)
                #expect(refused.status == 400, "\(fields)")
                #expect(!refused.text.contains(#"id="teletan""#), "\(fields)")
            }
            #expect(try await h.auditRows().isEmpty)
            // The officer's one teleTAN per interval was not taken by the refusals.
            #expect(try await anna.issue("TEST").status == 200)
        }
    }

    /// Forms come form-encoded and small; anything else is refused before it is read, and issues nothing.
    @Test(arguments: TestDatabase.all)
    func aFormThatIsNotAFormOrTooLargeIsRefused(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let anna = try await h.signedIn("anna")
            let token = try PortalBrowser.csrf(in: try await anna.get("/"))
            let asJSON = try await anna.post("/teletan", [("csrf", token), ("type", "TEST")], headers: [("Content-Type", "application/json")])
            #expect(asJSON.status == 400)
            let padded = try await anna.post("/teletan", [("csrf", token), ("type", "TEST"), ("padding", String(repeating: "a", count: 20_000))])
            #expect(padded.status == 413)
            #expect(!padded.text.contains(#"id="teletan""#))
            #expect(try await h.auditRows().isEmpty)
            // Signing out without a session is no error: the browser goes to the sign-in page.
            let stranger = h.browser()
            let out = try await stranger.post("/logout", [("csrf", "x")])
            #expect(out.status == 303)
            #expect(out.header("Location")?.hasPrefix("/login") == true)
        }
    }

    @Test(arguments: TestDatabase.all)
    func formsWithoutTheSessionsCSRFTokenAreRefused(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let anna = try await h.signedIn("anna")
            let bert = try await h.signedIn("bert")
            let bertsToken = try PortalBrowser.csrf(in: try await bert.get("/"))
            for fields in [[("type", "TEST")], [("csrf", ""), ("type", "TEST")], [("csrf", bertsToken), ("type", "TEST")]] {
                let refused = try await anna.post("/teletan", fields)
                #expect(refused.status == 403)
                #expect(PortalBrowser.problem(in: refused) == "form-expired")
                #expect(!refused.text.contains(#"id="teletan""#))
            }
            #expect(try await h.auditRows().isEmpty)
        }
    }

    @Test(arguments: TestDatabase.all)
    func anOfficerGetsOneTeleTANEveryThirtySeconds(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let anna = try await h.signedIn("anna")
            try #require(try await anna.issue("TEST").status == 200)
            h.clock.advance(by: 10)
            let limited = try await anna.issue("EVENT", healthAuthority: "1.08.2.12.")
            Covers.status(429, of: "POST /teletan", limited, error: "officer-limit")
            #expect(limited.text.contains("Please try again in 20 seconds"))
            // Another officer is not affected.
            let bert = try await h.signedIn("bert")
            try #require(try await bert.issue("TEST").status == 200)
            h.clock.advance(by: 20)
            try #require(try await anna.issue("TEST").status == 200)
            let outcomes = try await h.auditRows().map { $0["outcome"]! }
            #expect(outcomes == ["issued", "officer_limited", "issued", "issued"])
        }
    }

    @Test(arguments: TestDatabase.all)
    func concurrentRequestsOfOneOfficerYieldOneTeleTAN(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let anna = try await h.signedIn("anna")
            let token = try PortalBrowser.csrf(in: try await anna.get("/"))
            // Twenty at once (the browser's client holds more connections than that to one host), released together.
            let statuses = try await concurrently(20) { try await anna.post("/teletan", [("csrf", token), ("type", "TEST")]).status }
            #expect(statuses.filter { $0 == 200 }.count == 1)
            #expect(statuses.filter { $0 == 429 }.count == 19)
            // Exactly once in the audit log: one teleTAN issued, the others refused by the officer's limit.
            let outcomes = try await h.auditRows().map { $0["outcome"]! }
            #expect(outcomes.filter { $0 == "issued" }.count == 1)
            #expect(outcomes.filter { $0 == "officer_limited" }.count == 19)
        }
    }

    @Test(arguments: TestDatabase.all)
    func verificationsGlobalLimitHasItsOwnPage(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, verification: ["TELETAN_RATE_LIMIT": "1", "TELETAN_RATE_WINDOW": "1h"]) { h in
            let anna = try await h.signedIn("anna")
            try #require(try await anna.issue("TEST").status == 200)
            let bert = try await h.signedIn("bert")
            let busy = try await bert.issue("TEST")
            #expect(busy.status == 429)
            #expect(PortalBrowser.problem(in: busy) == "global-limit")
            #expect(busy.text.contains("nationwide limit"))
            // Bert's own slot was given back: once verification has room again, he need not wait.
            h.clock.advance(by: 3601)
            try #require(try await bert.issue("TEST").status == 200)
            let outcomes = try await h.auditRows().map { $0["outcome"]! }
            #expect(outcomes == ["issued", "global_limited", "issued"])
        }
    }

    @Test(arguments: TestDatabase.all)
    func aRetryAfterALostAnswerShowsTheTeleTANTheFirstAttemptIssued(kind: TestDatabase) async throws {
        // The proxy passes the first request on and answers 504: verification has issued a teleTAN nobody saw. The
        // portal's retry carries the same idempotency key and gets that teleTAN. Under a limit of one, a second
        // teleTAN would have been refused.
        let proxy = AnswerDroppingProxy(paths: ["/version/v1/tan/teletan"], dropping: 1)
        // A generous deadline per attempt: on a loaded machine a slow answer must not make the portal give up before
        // the retry this test is about (it did, on two busy cores, with the default 5 s).
        try await PortalHarness.run(
            on: kind, portal: ["VERIFICATION_TIMEOUT": "60s"], verification: ["TELETAN_RATE_LIMIT": "1", "TELETAN_RATE_WINDOW": "1h"], proxy: proxy
        ) { h in
            let anna = try await h.signedIn("anna")
            let page = try await anna.issue("TEST")
            #expect(page.status == 200)
            #expect(proxy.passedCount == 2)
            let teleTAN = try PortalBrowser.shownTeleTAN(in: page).replacingOccurrences(of: " ", with: "")
            try #require(try await h.register(teleTAN: teleTAN).status == 201)
            // Another request is a new one: a new key, and the limit of one is used.
            let next = try await h.signedIn("bert").issue("TEST")
            #expect(next.status == 429)
            #expect(proxy.passedCount == 3)
            #expect(try await h.auditRows().map { $0["outcome"]! } == ["issued", "global_limited"])
        }
    }

    @Test(arguments: TestDatabase.all)
    func aVerificationThatDoesNotTrustThePortalIsReportedNotHidden(kind: TestDatabase) async throws {
        // Verification trusting another key: the portal's token is refused (401).
        let publicKey = try ForeignSigningKey.publicKeyFile()
        try await PortalHarness.run(on: kind, verification: ["JWT_PUBLIC_KEY_FILES": "\(publicKey)|exposuresuite-portal|exposuresuite-verification"]) { h in
            let anna = try await h.signedIn("anna")
            let refused = try await anna.issue("TEST")
            Covers.status(502, of: "POST /teletan", refused, error: "verification-refused")
            #expect(try await h.auditRows().map { $0["outcome"]! } == ["refused"])
        }
    }

    @Test(arguments: TestDatabase.all)
    func anUnreachableVerificationGetsAFriendlyPage(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, portal: ["VERIFICATION_URL": "http://127.0.0.1:1", "VERIFICATION_TIMEOUT": "1s"]) { h in
            let anna = try await h.signedIn("anna")
            let down = try await anna.issue("TEST")
            Covers.status(503, of: "POST /teletan", down, error: "unavailable")
            #expect(!down.text.contains("Error"))
        }
    }
}
