import ExposureCore
import ExposureTestSupport
import Foundation
@testable import PortalDomain
import Testing
@testable import Portal

/// The health-authorities page of system administrators (#60): verification keeps the authorities, the page reads
/// and changes them with the administrator's own token, appoints an authority's first supervisor, and records each
/// step in the administration audit log of the authority it touched.
@Suite struct AuthorityPageTests {
    /// Sam adds `north` (teleTANs only, its own hourly limit), appoints its first supervisor, disables it (its
    /// officer issues nothing) and enables it again (its officer issues).
    @Test(arguments: TestDatabase.all)
    func aSystemAdministratorAddsAnAuthorityAppointsItsSupervisorAndDisablesIt(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let sam = try await h.systemAdministrator()
            let start = try await sam.get("/")
            #expect(start.text.contains(#"<a href="/authorities" id="nav-authorities">"#))
            let empty = try await sam.get("/authorities")
            Covers.status(200, of: "GET /authorities", empty)
            // The installation's migrated authority is there from the start.
            #expect(empty.text.contains(#"id="authority-default""#))

            let added = try await sam.administer("/authorities", [
                ("id", "north"), ("name", "Gesundheitsamt Nord"), ("regions", "DE, DE"), ("family-cwa", "on"), ("per-hour", "5"), ("per-day", ""),
                ("per-key-hour", "40"), ("per-key-day", ""),
            ], from: "/authorities")
            Covers.status(303, of: "POST /authorities", added)
            #expect(added.header("Location") == "/authorities?done=added&id=north")
            let list = try await sam.get("/authorities?done=added&id=north")
            let row = try #require(list.text.firstRange(of: #"id="authority-north""#).map { String(list.text[$0.lowerBound...].prefix(3000)) })
            #expect(row.contains("<td>Gesundheitsamt Nord</td>") && row.contains("<td>DE</td>"))
            #expect(row.contains("<td>Corona-Warn-App (teleTANs)</td>") && row.contains("<td>5 an hour, 40 per issuer key an hour</td>"))
            #expect(list.text.contains(#"id="notice">north was added."#))
            // The row's settings form shows the settings as they are, and replaces them all: an emptied limit is none.
            #expect(row.contains(#"id="change-north-name" name="name" value="Gesundheitsamt Nord""#))
            #expect(row.contains(#"id="change-north-family-cwa" checked>"#) && row.contains(#"id="change-north-family-protego">"#))
            #expect(row.contains(#"id="change-north-per-hour" name="per-hour" value="5""#))
            #expect(row.contains(#"id="change-north-per-key-hour" name="per-key-hour" value="40""#))
            let limited = try await sam.administer("/authorities/change", [
                ("id", "north"), ("name", "Gesundheitsamt Nord"), ("regions", "DE, AT"), ("family-cwa", "on"), ("family-protego", "on"),
                ("per-hour", ""), ("per-day", "300"), ("per-key-hour", "25"), ("per-key-day", ""),
            ], from: "/authorities")
            Covers.status(303, of: "POST /authorities/change", limited)
            #expect(limited.header("Location") == "/authorities?done=changed&id=north")
            let relisted = try await sam.get("/authorities?done=changed&id=north")
            #expect(relisted.text.contains("<td>300 a day, 25 per issuer key an hour</td>"))
            #expect(relisted.text.contains(#"id="notice">north is changed."#) && relisted.text.contains("<td>DE, AT</td>"))
            #expect(relisted.text.contains(#"id="change-north-family-protego" checked>"#))
            Covers.status(400, of: "POST /authorities/change", try await sam.administer("/authorities/change", [
                ("id", "north"), ("name", "Nord"), ("family-cwa", "on"), ("per-key-day", "10000001"),
            ], from: "/authorities"), error: "invalid-limit")
            Covers.status(400, of: "POST /authorities/change", try await sam.administer("/authorities/change", [
                ("id", "north"), ("name", " "), ("family-cwa", "on"),
            ], from: "/authorities"), error: "invalid-authority-name")
            Covers.status(404, of: "POST /authorities/change", try await sam.administer("/authorities/change", [
                ("id", "west"), ("name", "West"), ("per-hour", "5"),
            ], from: "/authorities"), error: "no-such-authority")
            #expect(try await sam.get("/authorities").text.contains("<td>300 a day, 25 per issuer key an hour</td>"))

            let appointed = try await sam.administer("/authorities/supervisor", [("id", "north"), ("name", "nora")], from: "/authorities")
            Covers.status(200, of: "POST /authorities/supervisor", appointed)
            #expect(appointed.text.contains("nora is now a supervisor of Gesundheitsamt Nord."))
            #expect(appointed.text.contains(#"id="back-to-authorities""#))
            let password = try PortalBrowser.temporaryPassword(in: appointed)
            let nora = try #require(try await h.users(["list"]).split(separator: "\n").first { $0.hasPrefix("nora\t") })
            #expect(nora.hasPrefix("nora\tc19supervisor\t") && nora.hasSuffix("\tnorth"))
            // Nora signs in with it, and must choose her own password first.
            let signIn = try await h.browser().signIn("nora", password)
            #expect(signIn.status == 303 && signIn.header("Location") == "/password")

            // An officer of north issues nothing while north is disabled, and issues again once it is enabled.
            let olga = try await h.signedIn("olga", authority: "north")
            let disabled = try await sam.administer("/authorities/disable", [("id", "north")], from: "/authorities")
            Covers.status(303, of: "POST /authorities/disable", disabled)
            #expect(try await sam.get("/authorities?done=disabled&id=north").text.contains("north is disabled"))
            #expect(try await olga.issue("TEST").status == 502)
            // Her start page says so instead of offering a form verification refuses.
            let idle = try await olga.get("/")
            #expect(idle.text.contains(#"id="authority-issues-nothing""#) && !idle.text.contains(#"id="issue-test""#))
            let enabled = try await sam.administer("/authorities/enable", [("id", "north")], from: "/authorities")
            Covers.status(303, of: "POST /authorities/enable", enabled)
            #expect(try await olga.issue("TEST").status == 200)
            // The start page's minute-old view of the authority is read again after a minute.
            h.clock.advance(by: 61)
            let ready = try await olga.get("/")
            #expect(ready.text.contains(#"id="issue-test""#) && !ready.text.contains(#"id="authority-issues-nothing""#))

            // Each step in the audit log of north, where its supervisors see it too.
            let rows = try await h.administrationRows()
            #expect(rows.contains("sam authority_added north Gesundheitsamt Nord"))
            #expect(rows.contains("sam officer_added nora c19supervisor"))
            #expect(rows.contains("sam authority_disabled north -") && rows.contains("sam authority_enabled north -"))
            #expect(rows.contains("sam authority_changed north families=cwa,protego regions=DE,AT per-hour=- per-day=300 per-key-hour=25 per-key-day=-"))
            let audit = try await sam.get("/audit?action=authority_added")
            #expect(audit.status == 200 && audit.text.contains("Health authority added"))
        }
    }

    /// Every mistake on the page is answered on the page, in words, and changes nothing at verification.
    @Test(arguments: TestDatabase.all)
    func mistakesAreAnsweredOnThePageAndChangeNothing(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let sam = try await h.systemAdministrator()
            func add(_ fields: [(String, String)]) async throws -> BrowserResponse {
                try await sam.administer("/authorities", fields, from: "/authorities")
            }
            let valid = [("id", "east"), ("name", "East"), ("family-cwa", "on")]
            func with(_ name: String, _ value: String) -> [(String, String)] { valid.filter { $0.0 != name } + [(name, value)] }
            let refusals: [([(String, String)], String)] = [
                (with("id", "East"), "invalid-authority-id"),
                (with("id", "-east"), "invalid-authority-id"),
                (with("id", String(repeating: "e", count: 33)), "invalid-authority-id"),
                (with("name", "  "), "invalid-authority-name"),
                (with("name", String(repeating: "n", count: 101)), "invalid-authority-name"),
                (with("regions", "DE, Nord/Rhein"), "invalid-regions"),
                (with("regions", (1...33).map { "R\($0)" }.joined(separator: ",")), "invalid-regions"),
                (with("regions", "D.E"), "invalid-regions"),
                (with("per-hour", "0"), "invalid-limit"),
                (with("per-day", "ten"), "invalid-limit"),
                (with("per-hour", "1000001"), "invalid-limit"),
                (with("per-key-hour", "0"), "invalid-limit"),
                (with("per-key-day", "10000001"), "invalid-limit"),
            ]
            for (fields, problem) in refusals {
                let answer = try await add(fields)
                Covers.status(400, of: "POST /authorities", answer, error: problem)
                #expect(answer.text.contains(#"data-problem="\#(problem)""#), "\(fields)")
            }
            #expect(!(try await sam.get("/authorities")).text.contains(#"id="authority-east""#))

            Covers.status(303, of: "POST /authorities", try await add(valid))
            Covers.status(409, of: "POST /authorities", try await add(valid), error: "authority-exists")
            Covers.status(404, of: "POST /authorities/disable", try await sam.administer("/authorities/disable", [("id", "west")], from: "/authorities"), error: "no-such-authority")
            Covers.status(404, of: "POST /authorities/enable", try await sam.administer("/authorities/enable", [("id", "West!")], from: "/authorities"), error: "no-such-authority")
            Covers.status(404, of: "POST /authorities/supervisor", try await sam.administer("/authorities/supervisor", [("id", "west"), ("name", "wendy")], from: "/authorities"), error: "no-such-authority")
            Covers.status(400, of: "POST /authorities/supervisor", try await sam.administer("/authorities/supervisor", [("id", "east"), ("name", "no body")], from: "/authorities"), error: "invalid-name")
            Covers.status(409, of: "POST /authorities/supervisor", try await sam.administer("/authorities/supervisor", [("id", "east"), ("name", "sam")], from: "/authorities"), error: "name-taken")
            #expect(!(try await h.users(["list"])).contains("wendy"))
            // Without the session's CSRF token nothing changes.
            Covers.status(403, of: "POST /authorities/disable", try await sam.post("/authorities/disable", [("id", "east")]), error: "form-expired")
            #expect(!(try await sam.get("/authorities")).text.contains("disabled"))
            // Without a session: sign in first.
            Covers.status(303, of: "GET /authorities", try await h.browser().get("/authorities"))
            Covers.status(303, of: "POST /authorities/supervisor", try await h.browser().post("/authorities/supervisor", [("id", "east"), ("name", "x")]))
        }
    }

    /// A supervisor and an officer get the page that says who may see it, and none of the page's changes; verification
    /// would refuse their tokens anyway (`AuthorityAPITests`), but the portal does not ask.
    @Test(arguments: TestDatabase.all)
    func onlySystemAdministratorsReachThePage(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let sofia = try await h.supervisor("sofia")
            let olga = try await h.signedIn("olga")
            for browser in [sofia, olga] {
                let page = try await browser.get("/authorities")
                Covers.status(403, of: "GET /authorities", page, error: "not-system-administrator")
                #expect(page.text.contains("For system administrators only"))
                #expect(!page.text.contains(#"id="nav-authorities""#))
                let csrf = try PortalBrowser.csrf(in: try await browser.get("/password"))
                func post(_ path: String, _ fields: [(String, String)]) async throws -> BrowserResponse {
                    try await browser.post(path, [("csrf", csrf)] + fields)
                }
                let refused = "not-system-administrator"
                Covers.status(403, of: "POST /authorities", try await post("/authorities", [("id", "south"), ("name", "South"), ("family-cwa", "on")]), error: refused)
                Covers.status(403, of: "POST /authorities/disable", try await post("/authorities/disable", [("id", "default")]), error: refused)
                Covers.status(403, of: "POST /authorities/enable", try await post("/authorities/enable", [("id", "default")]), error: refused)
                Covers.status(403, of: "POST /authorities/change", try await post("/authorities/change", [("id", "default"), ("per-hour", "1")]), error: refused)
                Covers.status(403, of: "POST /authorities/supervisor", try await post("/authorities/supervisor", [("id", "default"), ("name", "mallory")]), error: refused)
            }
            // Nothing changed: no south, default enabled, no mallory, nothing recorded.
            let sam = try await h.systemAdministrator()
            let list = try await sam.get("/authorities")
            #expect(!list.text.contains("authority-south") && list.text.contains(#"id="disable-default""#))
            #expect(!(try await h.users(["list"])).contains("mallory"))
            #expect(try await h.administrationRows().allSatisfy { !$0.contains("authority_") })
        }
    }

    /// Verification unreachable: the page says so (503) rather than showing an empty list, and a change is not
    /// recorded as made.
    @Test(arguments: [TestDatabase.sqlite])
    func anUnreachableVerificationIsSaid(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, portal: ["VERIFICATION_URL": "http://127.0.0.1:1", "VERIFICATION_ATTEMPTS": "1"]) { h in
            let sam = try await h.systemAdministrator()
            Covers.status(503, of: "GET /authorities", try await sam.get("/authorities"), error: "unavailable")
            let csrf = try PortalBrowser.csrf(in: try await sam.get("/password"))
            Covers.status(503, of: "POST /authorities", try await sam.post("/authorities", [("csrf", csrf), ("id", "east"), ("name", "East")]), error: "unavailable")
            Covers.status(503, of: "POST /authorities/disable", try await sam.post("/authorities/disable", [("csrf", csrf), ("id", "east")]), error: "unavailable")
            Covers.status(503, of: "POST /authorities/enable", try await sam.post("/authorities/enable", [("csrf", csrf), ("id", "east")]), error: "unavailable")
            Covers.status(503, of: "POST /authorities/change", try await sam.post("/authorities/change", [("csrf", csrf), ("id", "east"), ("per-hour", "1")]), error: "unavailable")
            Covers.status(503, of: "POST /authorities/supervisor", try await sam.post("/authorities/supervisor", [("csrf", csrf), ("id", "east"), ("name", "erin")]), error: "unavailable")
            #expect(try await h.administrationRows().allSatisfy { !$0.contains("authority_") && !$0.contains("erin") })
        }
    }
}
