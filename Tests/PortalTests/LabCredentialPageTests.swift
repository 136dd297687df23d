import ExposureCore
import ExposureStatistics
import ExposureTestSupport
import Foundation
import Testing
@testable import Portal
@testable import PortalDomain

/// Lab credentials in the portal (issue #60): a system administrator creates a lab's API key and reads it once, creates
/// a second for a rotation, sees the day each was last used, and revokes the old one; every step is audited. A
/// supervisor or an officer reaches none of it.
@Suite struct LabCredentialPageTests {
    static func key(in page: BrowserResponse) -> String? {
        page.text.firstMatch(of: /id="lab-key" translate="no">([^<]+)</).map { String($0.output.1) }
    }

    static func post(_ h: PortalHarness, key: String, id: Int) async throws -> TestResponse {
        let lab = try #require(h.lab)
        let body: [String: Any] = ["testResults": [["id": SecretHash.sha256Hex("guid-\(id)"), "result": 2]]]
        return try await lab.postJSON("/api/v1/lab/results", body, headers: [("Authorization", "Bearer \(key)")])
    }

    /// The fingerprints of the page's rows of `lab` in `state` (`active`, `revoked`).
    static func fingerprints(_ page: BrowserResponse, state: String) -> [String] {
        page.text.matches(of: /<tr id="credential-([0-9a-f]{12})" class="(active|revoked)">/).filter { String($0.output.2) == state }.map { String($0.output.1) }
    }

    @Test(arguments: TestDatabase.all)
    func aSystemAdministratorCreatesRotatesAndRevokesALabsKey(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, withTestResult: true) { h in
            let sam = try await h.systemAdministrator("sam")
            let empty = try await sam.get("/labs")
            Covers.status(200, of: "GET /labs", empty)
            #expect(empty.text.contains(#"id="nav-labs""#) && empty.text.contains(#"id="no-lab-credentials""#))

            let created = try await sam.administer("/labs", [("lab", "lab-hamburg")], from: "/labs")
            Covers.status(200, of: "POST /labs", created)
            let first = try #require(Self.key(in: created))
            #expect(created.header("Cache-Control")?.contains("no-store") == true && created.text.contains("The API key of lab-hamburg"))
            #expect(try await Self.post(h, key: first, id: 1).status == 204)

            // The second key of a rotation; both work, and the list knows which one was used today, never a key.
            let second = try #require(Self.key(in: try await sam.administer("/labs", [("lab", "lab-hamburg")], from: "/labs")))
            let listed = try await sam.get("/labs")
            #expect(!listed.text.contains(first) && !listed.text.contains(second))
            let active = Self.fingerprints(listed, state: "active")
            #expect(active.count == 2)
            let today = Language.en.format.date(day: StatisticsDay(of: h.clock.now()).number)
            #expect(listed.text.contains(#"<td class="last-used">\#(today)</td>"#) && listed.text.contains(#"<td class="last-used">never</td>"#))
            let firstPrint = try #require(active.first { SecretHash.sha256Hex(first).hasPrefix($0) })

            // A lab id that is none, a form without its CSRF token: nothing made.
            let bad = try await sam.administer("/labs", [("lab", "has space")], from: "/labs")
            Covers.status(400, of: "POST /labs", bad)
            #expect(bad.text.contains("A lab id has 1 to 64 letters, digits"))
            Covers.status(403, of: "POST /labs", try await sam.post("/labs", [("lab", "rogue")]))

            let revoked = try await sam.administer("/labs/revoke", [("lab", "lab-hamburg"), ("fingerprint", firstPrint)], from: "/labs")
            Covers.status(200, of: "POST /labs/revoke", revoked)
            #expect(revoked.text.contains("\(firstPrint) of lab-hamburg is revoked") && Self.fingerprints(revoked, state: "revoked") == [firstPrint])
            #expect(try await Self.post(h, key: first, id: 2).status == 401)
            #expect(try await Self.post(h, key: second, id: 2).status == 204)
            let again = try await sam.administer("/labs/revoke", [("lab", "lab-hamburg"), ("fingerprint", firstPrint)], from: "/labs")
            Covers.status(404, of: "POST /labs/revoke", again)
            #expect(again.text.contains(Language.en.labCredentialTexts.refusedUnknown))
            Covers.status(400, of: "POST /labs/revoke", try await sam.administer("/labs/revoke", [("lab", "lab-hamburg")], from: "/labs"))
            Covers.status(403, of: "POST /labs/revoke", try await sam.post("/labs/revoke", [("lab", "lab-hamburg"), ("fingerprint", firstPrint)]))

            let audit = try await sam.get("/audit")
            #expect(audit.text.contains("Lab key created") && audit.text.contains("Lab credential revoked") && audit.text.contains(firstPrint))

            // A supervisor and an officer get the system administrators' page; nobody signed in, the sign-in page.
            let sofia = try await h.supervisor("sofia")
            #expect(!(try await sofia.get("/")).text.contains(#"id="nav-labs""#))
            let refused = try await sofia.get("/labs")
            Covers.status(403, of: "GET /labs", refused)
            #expect(!refused.text.contains("lab-hamburg"))
            #expect(try await sofia.administer("/labs", [("lab", "rogue")], from: "/officers").status == 403)
            #expect(try await sofia.administer("/labs/revoke", [("lab", "lab-hamburg"), ("fingerprint", firstPrint)], from: "/officers").status == 403)
            #expect(try await Self.post(h, key: second, id: 3).status == 204)
            Covers.status(303, of: "GET /labs", try await h.browser().get("/labs"))
            Covers.status(303, of: "POST /labs", try await h.browser().post("/labs", [("lab", "x")]))
            Covers.status(303, of: "POST /labs/revoke", try await h.browser().post("/labs/revoke", [("lab", "x")]))
        }
    }

    /// Test-result unreachable: the page says so (503); a portal without `TESTRESULT_API_TOKEN` says where labs are
    /// administered instead.
    @Test(arguments: [TestDatabase.sqlite])
    func anUnreachableOrUnconfiguredTestResultIsSaid(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let sam = try await h.systemAdministrator("sam")
            Covers.status(503, of: "GET /labs", try await sam.get("/labs"), error: "unavailable")
            let csrf = try PortalBrowser.csrf(in: try await sam.get("/password"))
            Covers.status(503, of: "POST /labs", try await sam.post("/labs", [("csrf", csrf), ("lab", "lab-1")]), error: "unavailable")
            Covers.status(503, of: "POST /labs/revoke", try await sam.post("/labs/revoke", [("csrf", csrf), ("lab", "lab-1"), ("fingerprint", "abcdef012345")]), error: "unavailable")
        }
        try await PortalHarness.run(on: kind, portal: ["TESTRESULT_API_TOKEN": ""]) { h in
            let sam = try await h.systemAdministrator("sam")
            let page = try await sam.get("/labs")
            #expect(page.status == 503 && page.text.contains("TESTRESULT_API_TOKEN") && !page.text.contains(#"id="add-lab-key""#))
        }
    }
}
