import ExposureStatistics
import ExposureTestSupport
import Foundation
import Testing
@testable import Portal
@testable import PortalDomain
import Verification

/// Issuer keys in the portal (issue #60): a supervisor creates a key for one of their authority's systems and reads its
/// token once, sees the day it was last used, and revokes it; every step is audited; another authority's supervisor
/// sees and revokes none of it.
@Suite struct IssuerKeyPageTests {
    static func token(in page: BrowserResponse) -> String? {
        page.text.firstMatch(of: /id="issuer-token" translate="no">(iss_[A-Za-z0-9_-]{43})</).map { String($0.output.1) }
    }

    static func generateCode(_ h: PortalHarness, token: String) async throws -> TestResponse {
        try await h.issuer.postRaw("/generateCode", Array(#"{"data":{}}"#.utf8), headers: [("api-token", token)])
    }

    @Test(arguments: TestDatabase.all)
    func aSupervisorCreatesAKeyReadsItsTokenOnceAndRevokesIt(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let sofia = try await h.supervisor("sofia")
            let empty = try await sofia.get("/issuers")
            Covers.status(200, of: "GET /issuers", empty)
            #expect(empty.text.contains(#"id="nav-issuers""#) && empty.text.contains(#"id="no-issuer-keys""#))

            let created = try await sofia.administer("/issuers", [("name", "gis-pl"), ("kind", "PROTEGO"), ("region", ""), ("expires", "")], from: "/issuers")
            Covers.status(200, of: "POST /issuers", created)
            let token = try #require(Self.token(in: created))
            #expect(created.header("Cache-Control")?.contains("no-store") == true)
            #expect(try await Self.generateCode(h, token: token).status == 200)

            // The list names the key, never its token, with the day it was used.
            let listed = try await sofia.get("/issuers")
            #expect(listed.text.contains(#"id="issuer-gis-pl""#) && !listed.text.contains(token))
            let today = Language.en.format.date(day: StatisticsDay(of: h.clock.now()).number)
            #expect(listed.text.contains(#"<td class="last-used">\#(today)</td>"#) && listed.text.contains(#"<td class="expires">never</td>"#))
            #expect(listed.text.contains("ProteGO Safe PINs") && listed.text.contains("(sofia)"))

            // A name taken, a name that is none, a last day gone, a form without its CSRF token: nothing made.
            let taken = try await sofia.administer("/issuers", [("name", "gis-pl"), ("kind", "PROTEGO")], from: "/issuers")
            Covers.status(409, of: "POST /issuers", taken)
            #expect(taken.text.contains(Language.en.issuerKeyTexts.refusedExists))
            let badName = try await sofia.administer("/issuers", [("name", "has space"), ("kind", "PROTEGO")], from: "/issuers")
            Covers.status(400, of: "POST /issuers", badName)
            #expect(badName.text.contains("A name has 1 to 64 letters, digits"))
            let past = try await sofia.administer("/issuers", [("name", "late"), ("kind", "PROTEGO"), ("expires", "2025-01-01")], from: "/issuers")
            #expect(past.status == 400 && past.text.contains(Language.en.issuerKeyTexts.refusedInvalidExpiry))
            #expect(try await sofia.administer("/issuers", [("name", "x"), ("kind", "LEMON")], from: "/issuers").status == 400)
            Covers.status(403, of: "POST /issuers", try await sofia.post("/issuers", [("name", "x"), ("kind", "PROTEGO")]))

            // An officer without the role gets the supervisors-only page.
            let hanna = try await h.signedIn("hanna")
            #expect(!(try await hanna.get("/")).text.contains(#"id="nav-issuers""#))
            let refused = try await hanna.get("/issuers")
            Covers.status(403, of: "GET /issuers", refused)
            #expect(refused.text.contains("Issuer keys page"))

            // Revoked: the token stops working at once, and both steps are in the audit log.
            let revoked = try await sofia.administer("/issuers/revoke", [("name", "gis-pl")], from: "/issuers")
            Covers.status(200, of: "POST /issuers/revoke", revoked)
            #expect(revoked.text.contains("gis-pl is revoked") && revoked.text.contains(#"id="no-issuer-keys""#))
            #expect(try await Self.generateCode(h, token: token).status == 403)
            Covers.status(404, of: "POST /issuers/revoke", try await sofia.administer("/issuers/revoke", [("name", "gis-pl")], from: "/issuers"))
            Covers.status(403, of: "POST /issuers/revoke", try await sofia.post("/issuers/revoke", [("name", "gis-pl")]))
            let audit = try await sofia.get("/audit")
            #expect(audit.text.contains("Issuer key created") && audit.text.contains("Issuer key revoked"))

            Covers.status(303, of: "GET /issuers", try await h.browser().get("/issuers"))
            Covers.status(303, of: "POST /issuers", try await h.browser().post("/issuers", [("name", "x")]))
            Covers.status(303, of: "POST /issuers/revoke", try await h.browser().post("/issuers/revoke", [("name", "x")]))
        }
    }

    @Test(arguments: TestDatabase.all)
    func anotherAuthoritysSupervisorSeesAndRevokesNone(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let sofia = try await h.supervisor("sofia")
            let created = try await sofia.administer("/issuers", [("name", "ontario-ha"), ("kind", "COVIDSHIELD")], from: "/issuers")
            let token = try #require(Self.token(in: created))
            _ = try await AuthorityStore(database: h.verificationDatabase).create(
                id: "north", settings: .init(name: "North", families: [.cwa, .covidShield]), now: h.clock.now())
            let nora = try await h.supervisor("nora", authority: "north")
            let theirs = try await nora.get("/issuers")
            #expect(theirs.status == 200 && theirs.text.contains(#"id="no-issuer-keys""#) && !theirs.text.contains("ontario-ha"))
            let refused = try await nora.administer("/issuers/revoke", [("name", "ontario-ha")], from: "/issuers")
            #expect(refused.status == 404 && refused.text.contains(Language.en.issuerKeyTexts.refusedUnknown))
            #expect(try await h.issuer.request(.POST, "/new-key-claim", headers: [("Authorization", "Bearer \(token)")]).status == 200)
            // A family the authority may not issue is not offered, and refused when asked for.
            #expect(!theirs.text.contains(#"<option value="PROTEGO">"#) && theirs.text.contains(#"<option value="COVIDSHIELD">"#))
            let proteGO = try await nora.administer("/issuers", [("name", "north-pl"), ("kind", "PROTEGO")], from: "/issuers")
            #expect(proteGO.status == 400 && proteGO.text.contains(Language.en.issuerKeyTexts.refusedFamily))
        }
    }

    /// Verification unreachable: the page says so (503) rather than showing an empty list.
    @Test(arguments: [TestDatabase.sqlite])
    func anUnreachableVerificationIsSaid(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, portal: ["VERIFICATION_URL": "http://127.0.0.1:1", "VERIFICATION_ATTEMPTS": "1"]) { h in
            let sofia = try await h.supervisor("sofia")
            Covers.status(503, of: "GET /issuers", try await sofia.get("/issuers"), error: "unavailable")
            let csrf = try PortalBrowser.csrf(in: try await sofia.get("/password"))
            Covers.status(503, of: "POST /issuers", try await sofia.post("/issuers", [("csrf", csrf), ("name", "x"), ("kind", "PROTEGO")]), error: "unavailable")
            Covers.status(503, of: "POST /issuers/revoke", try await sofia.post("/issuers/revoke", [("csrf", csrf), ("name", "x")]), error: "unavailable")
        }
    }
}
