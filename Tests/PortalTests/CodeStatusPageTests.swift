import ExposureTestSupport
import Foundation
import Testing
@testable import Portal
@testable import PortalDomain
import Verification

/// Code status in the portal (issue #62): an officer's teleTANs and codes of the last 7 days with their status (to the
/// hour), never the codes themselves; expiring one read to the wrong person; a supervisor's view of their authority's.
@Suite struct CodeStatusPageTests {
    static func expireButtons(in page: BrowserResponse) -> [String] {
        page.text.matches(of: /id="expire-([0-9a-f-]{36})"/).map { String($0.output.1) }
    }

    @Test(arguments: TestDatabase.all)
    func anOfficerSeesWhetherTheirCodesWereUsedAndExpiresOne(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, portal: ["ONE_TIME_CODE_KINDS": "protego"]) { h in
            let hanna = try await h.signedIn("hanna")
            let teleTAN = try PortalBrowser.shownTeleTAN(in: try await hanna.issue("TEST")).replacingOccurrences(of: " ", with: "")
            h.clock.advance(by: 31)
            let pin = try PortalBrowser.shownCode(in: try await hanna.issueCode("PROTEGO")).replacingOccurrences(of: " ", with: "")

            let page = try await hanna.get("/codes")
            Covers.status(200, of: "GET /codes", page)
            #expect(page.text.contains(#"id="nav-codes""#))
            #expect(page.text.contains("TEST teleTAN") && page.text.contains("ProteGO Safe PIN"))
            #expect(page.text.components(separatedBy: "<td class=\"status\">Unused</td>").count == 3)
            #expect(!page.text.contains(teleTAN) && !page.text.contains(pin))
            #expect(Self.expireButtons(in: page).count == 2)

            // The patient registers the teleTAN: used, to the hour; only the PIN can still be expired.
            try #require(try await h.register(teleTAN: teleTAN).status == 201)
            let used = try await hanna.get("/codes")
            #expect(used.text.contains("Used, "))
            let live = Self.expireButtons(in: used)
            #expect(live.count == 1)
            let pinID = try #require(live.first)

            // Another officer cannot end it: it is not one of theirs.
            let otto = try await h.signedIn("otto")
            Covers.status(404, of: "POST /codes/expire", try await otto.administer("/codes/expire", [("id", pinID)], from: "/codes"))
            // Hanna can; the PIN no longer works, and a second expiry changes nothing.
            let expired = try await hanna.administer("/codes/expire", [("id", pinID)], from: "/codes")
            Covers.status(200, of: "POST /codes/expire", expired)
            #expect(expired.text.contains(Language.en.codeStatusTexts.expiredNotice) && Self.expireButtons(in: expired).isEmpty)
            #expect(try await h.redeem("PROTEGO", code: pin).status == 404)
            Covers.status(409, of: "POST /codes/expire", try await hanna.administer("/codes/expire", [("id", pinID)], from: "/codes"))

            // A form without its CSRF token, or with an id that is none, changes nothing; signed out, the sign-in page.
            Covers.status(403, of: "POST /codes/expire", try await hanna.post("/codes/expire", [("id", pinID)]))
            Covers.status(400, of: "POST /codes/expire", try await hanna.administer("/codes/expire", [("id", "nothing")], from: "/codes"))
            Covers.status(400, of: "GET /codes", try await hanna.get("/codes?view=everyone"))
            let notSupervisor = try await hanna.get("/codes?view=authority")
            Covers.status(403, of: "GET /codes", notSupervisor)
            #expect(notSupervisor.text.contains(Language.en.codeStatusTexts.supervisorsOnly))
            // An account that issues no codes has none to check, and is told why.
            let none = try await h.signedIn("nils", roles: "", language: "de")
            let noRole = try await none.get("/codes")
            #expect(noRole.status == 403 && noRole.text.contains(Language.de.codeStatusTexts.noRole) && !noRole.text.contains(#"id="nav-codes""#))
            // In German, the times as German readers write them (and in UTC, said so).
            let greta = try await h.signedIn("greta", language: "de")
            try #require(try await greta.issue("TEST").status == 200)
            let inGerman = try await greta.get("/codes")
            let issuedAt = Language.de.format.minute(epochSeconds: h.clock.now().epochSeconds)
            #expect(issuedAt.hasSuffix(" UTC") && inGerman.text.contains("<td>\(issuedAt)</td>"))
            Covers.status(303, of: "GET /codes", try await h.browser().get("/codes"))
            Covers.status(303, of: "POST /codes/expire", try await h.browser().post("/codes/expire", [("id", pinID)]))
        }
    }

    @Test(arguments: TestDatabase.all)
    func aSupervisorSeesTheirAuthoritysCodesAndNoOtherAuthoritys(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let hanna = try await h.signedIn("hanna")
            try #require(try await hanna.issue("TEST").status == 200)
            let sofia = try await h.supervisor("sofia")
            #expect(try await sofia.get("/").text.contains(#"id="nav-codes""#))
            let own = try await sofia.get("/codes")
            #expect(own.text.contains(#"id="no-codes""#) && own.text.contains(#"id="view-authority""#))
            let all = try await sofia.get("/codes?view=authority")
            #expect(all.status == 200 && all.text.contains("<td>hanna</td>") && Self.expireButtons(in: all).count == 1)

            // A supervisor of another authority sees none of them, and cannot end one.
            _ = try await AuthorityStore(database: h.verificationDatabase).create(id: "north", settings: .init(name: "North", families: [.cwa]), now: h.clock.now())
            let nora = try await h.supervisor("nora", authority: "north")
            let theirs = try await nora.get("/codes?view=authority")
            #expect(theirs.status == 200 && theirs.text.contains(#"id="no-codes""#) && !theirs.text.contains("hanna"))
            let id = try #require(Self.expireButtons(in: all).first)
            #expect(try await nora.administer("/codes/expire", [("id", id)], from: "/codes").status == 404)
            // Hanna's supervisor can.
            let ended = try await sofia.administer("/codes/expire", [("id", id), ("view", "authority")], from: "/codes?view=authority")
            #expect(ended.status == 200 && ended.text.contains("<td>hanna</td>") && ended.text.contains("Expired"))
        }
    }

    /// Verification unreachable: the page says so (503) rather than showing an empty list.
    @Test(arguments: [TestDatabase.sqlite])
    func anUnreachableVerificationIsSaid(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, portal: ["VERIFICATION_URL": "http://127.0.0.1:1", "VERIFICATION_ATTEMPTS": "1"]) { h in
            let hanna = try await h.signedIn("hanna")
            Covers.status(503, of: "GET /codes", try await hanna.get("/codes"), error: "unavailable")
            let csrf = try PortalBrowser.csrf(in: try await hanna.get("/password"))
            Covers.status(503, of: "POST /codes/expire", try await hanna.post("/codes/expire", [("csrf", csrf), ("id", UUID().uuidString.lowercased())]), error: "unavailable")
        }
    }
}
