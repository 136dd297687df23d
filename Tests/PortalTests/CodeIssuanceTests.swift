import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Portal

/// The one-time codes of other app families in the portal (`POST /code`): offered beside the teleTAN for the kinds the
/// operator enables, to officers with the hotline role, shown once, audited, limited like teleTANs.
@Suite struct CodeIssuanceTests {
    static let bothKinds = ["ONE_TIME_CODE_KINDS": "covidshield,protego"]

    @Test(arguments: TestDatabase.all)
    func anOfficerIssuesCodesThatVerificationRedeemsOnce(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, portal: Self.bothKinds) { h in
            let anna = try await h.signedIn("anna", roles: "c19hotline")
            let start = try await anna.get("/")
            #expect(start.text.contains(#"id="issue-covidshield""#) && start.text.contains(#"id="issue-protego""#))
            #expect(start.text.contains(#"id="issue-test""#))

            let page = try await anna.issueCode("COVIDSHIELD")
            Covers.status(200, of: "POST /code", page)
            #expect(page.header("Cache-Control") == "no-store")
            let shown = try PortalBrowser.shownCode(in: page)
            #expect(shown.split(separator: " ").map(\.count) == [3, 3, 2])
            let code = shown.replacingOccurrences(of: " ", with: "")
            #expect(code.range(of: "^[0-9]{8}$", options: .regularExpression) != nil)
            #expect(page.text.contains("CovidShield code"))
            #expect(page.text.contains(#"<strong id="code-region">ON</strong>"#))
            #expect(page.text.contains("Valid for 10 minutes. The code is hidden after 10 minutes."))
            #expect(page.text.contains(#"data-code="\#(code)""#))
            // Shown in the answer to the form only.
            #expect(try await anna.get("/code").status == 404)

            // The adapter's side: the code is redeemed once, for the region.
            let redeemed = try await h.redeem("COVIDSHIELD", code: code)
            #expect(redeemed.status == 200)
            #expect(redeemed.json["region"] as? String == "ON")
            #expect(try await h.redeem("COVIDSHIELD", code: code).status == 404)

            // A PIN after the officer's interval; it lives 30 minutes, longer than it is shown.
            h.clock.advance(by: 30)
            let pinPage = try await anna.issueCode("PROTEGO")
            #expect(pinPage.status == 200)
            let pin = try PortalBrowser.shownCode(in: pinPage).replacingOccurrences(of: " ", with: "")
            #expect(pin.count == 6 && pinPage.text.contains("ProteGO Safe PIN") && pinPage.text.contains(#"id="code-region">PL<"#))
            #expect(pinPage.text.contains("Valid for 30 minutes. The code is hidden after 10 minutes."))
            #expect(try await h.redeem("PROTEGO", code: pin.lowercased()).json["uploadToken"] is String)

            // Audited by kind, without the codes.
            #expect(try await h.auditRows() == [
                ["officer": "anna", "teletan_type": "COVIDSHIELD", "outcome": "issued"],
                ["officer": "anna", "teletan_type": "PROTEGO", "outcome": "issued"],
            ])
            let everything = try await h.database.withConnection { connection in
                try await connection.raw("SELECT * FROM portal_audit_log").all().map { "\($0)" }.joined()
            }
            #expect(!everything.contains(code) && !everything.contains(pin))
            let listed = try await h.audit(["--limit", "5"])
            #expect(listed.contains("\tlocal:anna\tPROTEGO\t-\tissued"))
        }
    }

    @Test(arguments: TestDatabase.all)
    func theGermanPageNamesTheCode(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, portal: ["ONE_TIME_CODE_KINDS": "protego"]) { h in
            let greta = try await h.signedIn("greta", language: "de")
            let start = try await greta.get("/")
            #expect(start.text.contains("ProteGO-Safe-PIN erzeugen") && !start.text.contains("issue-covidshield"))
            let page = try await greta.issueCode("PROTEGO")
            #expect(page.status == 200)
            #expect(page.text.contains("Einmalcode") && page.text.contains("Gültig für 30 Minuten."))
        }
    }

    /// Only the kinds the operator enabled, only for officers with the role: the start page offers nothing else, and a
    /// form submitted anyway issues nothing.
    @Test(arguments: TestDatabase.all)
    func codesAreOfferedOnlyWhenEnabledAndToOfficersWithTheRole(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, portal: ["ONE_TIME_CODE_KINDS": "PROTEGO"]) { h in
            let anna = try await h.signedIn("anna")
            let start = try await anna.get("/")
            #expect(start.text.contains(#"id="issue-protego""#) && !start.text.contains(#"id="issue-covidshield""#))
            let notEnabled = try await anna.issueCode("COVIDSHIELD")
            Covers.status(400, of: "POST /code", notEnabled, error: "bad-request")
            let token = try PortalBrowser.csrf(in: start)
            for fields in [[("csrf", token)], [("csrf", token), ("kind", "")], [("csrf", token), ("kind", "protego")], [("csrf", token), ("kind", "TEST")]] {
                let refused = try await anna.post("/code", fields)
                #expect(refused.status == 400, "\(fields)")
                #expect(!refused.text.contains(#"id="one-time-code""#))
            }

            let eva = try await h.signedIn("eva", roles: "c19hotline_event")
            let evasStart = try await eva.get("/")
            #expect(!evasStart.text.contains(#"action="/code""#))
            let forbidden = try await eva.issueCode("PROTEGO")
            Covers.status(403, of: "POST /code", forbidden, error: "forbidden")

            for fields in [[("kind", "PROTEGO")], [("csrf", try PortalBrowser.csrf(in: evasStart)), ("kind", "PROTEGO")]] {
                let refused = try await anna.post("/code", fields)
                #expect(refused.status == 403 && PortalBrowser.problem(in: refused) == "form-expired")
            }
            let stranger = try await h.browser().post("/code", [("csrf", "x"), ("kind", "PROTEGO")])
            Covers.status(303, of: "POST /code", stranger)
            #expect(try await h.auditRows().isEmpty)
            // None of the refusals took anna's one request per interval.
            #expect(try await anna.issueCode("PROTEGO").status == 200)
        }
        // Without ONE_TIME_CODE_KINDS, no kind is offered.
        try await PortalHarness.run(on: kind) { h in
            let anna = try await h.signedIn("anna")
            #expect(!(try await anna.get("/")).text.contains(#"action="/code""#))
            #expect(try await anna.issueCode("PROTEGO").status == 400)
        }
    }

    /// One request per interval per officer, teleTANs and codes together; verification's limits count both too.
    @Test(arguments: TestDatabase.all)
    func codesShareTheOfficersIntervalAndVerificationsLimits(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, portal: Self.bothKinds, verification: ["TELETAN_RATE_LIMIT": "2", "TELETAN_RATE_WINDOW": "1h"]) { h in
            let anna = try await h.signedIn("anna")
            #expect(try await anna.issue("TEST").status == 200)
            h.clock.advance(by: 10)
            let limited = try await anna.issueCode("COVIDSHIELD")
            Covers.status(429, of: "POST /code", limited, error: "officer-limit")
            #expect(limited.text.contains("Please try again in 20 seconds"))
            let bert = try await h.signedIn("bert")
            #expect(try await bert.issueCode("PROTEGO").status == 200)
            let cora = try await h.signedIn("cora")
            let busy = try await cora.issueCode("COVIDSHIELD")
            #expect(busy.status == 429 && PortalBrowser.problem(in: busy) == "global-limit")
            #expect(try await h.auditRows().map { $0["outcome"]! } == ["issued", "officer_limited", "issued", "global_limited"])
        }
    }

    @Test(arguments: TestDatabase.all)
    func aVerificationThatRefusesOrIsGoneIsReported(kind: TestDatabase) async throws {
        let publicKey = try ForeignSigningKey.publicKeyFile()
        try await PortalHarness.run(
            on: kind, portal: Self.bothKinds, verification: ["JWT_PUBLIC_KEY_FILES": "\(publicKey)|exposuresuite-portal|exposuresuite-verification"]
        ) { h in
            let refused = try await h.signedIn("anna").issueCode("COVIDSHIELD")
            Covers.status(502, of: "POST /code", refused, error: "verification-refused")
            #expect(try await h.auditRows().map { $0["outcome"]! } == ["refused"])
        }
        try await PortalHarness.run(on: kind, portal: Self.bothKinds.merging(["VERIFICATION_URL": "http://127.0.0.1:1", "VERIFICATION_TIMEOUT": "1s"]) { $1 }) { h in
            let anna = try await h.signedIn("anna")
            let down = try await anna.issueCode("PROTEGO")
            Covers.status(503, of: "POST /code", down, error: "unavailable")
            #expect(try await h.auditRows().map { $0["outcome"]! } == ["failed"])
            // The claim was given back: the officer may try again at once.
            #expect(try await anna.issueCode("PROTEGO").status == 503)
        }
    }

    @Test func onlyKnownKindsMayBeEnabled() throws {
        #expect(try PortalConfiguration(TestServices.settings(["ONE_TIME_CODE_KINDS": " protego , COVIDSHIELD,protego"])).codeKinds == [.proteGO, .covidShield])
        #expect(try PortalConfiguration(TestServices.settings([:])).codeKinds.isEmpty)
        #expect(throws: ConfigurationError.self) { try PortalConfiguration(TestServices.settings(["ONE_TIME_CODE_KINDS": "covidshield,lemon"])) }
    }
}
