import ExposureTestSupport
import Foundation
import Testing
@testable import Portal
@testable import PortalDomain
import Verification

/// Signing keys in the portal (issue #60): a supervisor makes versions of their authority's key, sees which signs and
/// which are published, and retires an old one; each step is audited and shows at the public-key URL at once. A system
/// administrator reads every authority's versions and changes none; another authority's supervisor sees and retires
/// none of them.
@Suite struct SigningKeyPageTests {
    /// The key ids verification publishes for `authority`, newest first.
    static func published(_ h: PortalHarness, _ authority: String) async throws -> [String] {
        let answer = try await h.app.get("/jwks/\(authority)")
        let keys = (try? JSONSerialization.jsonObject(with: Data(answer.text.utf8))) as? [[String: String]] ?? []
        return keys.compactMap { $0["kid"] }
    }

    @Test(arguments: TestDatabase.all)
    func aSupervisorMakesAndRetiresVersionsOfTheirKey(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let sofia = try await h.supervisor("sofia")
            let empty = try await sofia.get("/signing-keys")
            Covers.status(200, of: "GET /signing-keys", empty)
            #expect(empty.text.contains(#"id="nav-signing-keys""#) && empty.text.contains(#"id="no-signing-keys""#))
            #expect(empty.text.contains("/jwks/default"))

            let first = try await sofia.administer("/signing-keys", [], from: "/signing-keys")
            Covers.status(200, of: "POST /signing-keys", first)
            #expect(first.text.contains("default-v1 signs from now on."))
            // The one that signs cannot be retired: no button for it, and a refusal when asked anyway.
            #expect(!first.text.contains(#"id="retire-default-v1""#))
            let active = try await sofia.administer("/signing-keys/retire", [("key", "default-v1")], from: "/signing-keys")
            Covers.status(409, of: "POST /signing-keys/retire", active)
            #expect(active.text.contains(Language.en.signingKeyTexts.refusedActive))

            let second = try await sofia.administer("/signing-keys", [], from: "/signing-keys")
            #expect(second.status == 200 && second.text.contains(#"id="retire-default-v1""#) && !second.text.contains(#"id="retire-default-v2""#))
            #expect(second.text.contains(#"<tr id="key-default-v2" class="active">"#) && second.text.contains(#"<tr id="key-default-v1" class="published">"#))
            #expect(second.text.contains("(sofia)"))
            #expect(try await Self.published(h, "default") == ["default-v2", "default-v1"])

            // Retired: gone from the published keys at once; a second retirement finds nothing.
            let retired = try await sofia.administer("/signing-keys/retire", [("key", "default-v1")], from: "/signing-keys")
            Covers.status(200, of: "POST /signing-keys/retire", retired)
            #expect(retired.text.contains("default-v1 is retired") && retired.text.contains(#"<tr id="key-default-v1" class="retired">"#))
            #expect(try await Self.published(h, "default") == ["default-v2"])
            let again = try await sofia.administer("/signing-keys/retire", [("key", "default-v1")], from: "/signing-keys")
            Covers.status(404, of: "POST /signing-keys/retire", again)
            #expect(again.text.contains(Language.en.signingKeyTexts.refusedUnknown))
            #expect(try await sofia.administer("/signing-keys/retire", [("key", "not a key")], from: "/signing-keys").status == 404)

            // A form without its CSRF token, or without a key, changes nothing.
            Covers.status(403, of: "POST /signing-keys", try await sofia.post("/signing-keys", []))
            Covers.status(403, of: "POST /signing-keys/retire", try await sofia.post("/signing-keys/retire", [("key", "default-v2")]))
            Covers.status(400, of: "POST /signing-keys/retire", try await sofia.administer("/signing-keys/retire", [], from: "/signing-keys"))
            #expect(try await Self.published(h, "default") == ["default-v2"])

            let audit = try await sofia.get("/audit")
            #expect(audit.text.contains("Signing key made") && audit.text.contains("Signing key retired") && audit.text.contains("default-v1"))

            // An officer without the role gets the supervisors-only page; no session, the sign-in page.
            let hanna = try await h.signedIn("hanna")
            #expect(!(try await hanna.get("/")).text.contains(#"id="nav-signing-keys""#))
            let refused = try await hanna.get("/signing-keys")
            Covers.status(403, of: "GET /signing-keys", refused)
            #expect(refused.text.contains("Signing keys page"))
            Covers.status(303, of: "GET /signing-keys", try await h.browser().get("/signing-keys"))
            Covers.status(303, of: "POST /signing-keys", try await h.browser().post("/signing-keys", []))
            Covers.status(303, of: "POST /signing-keys/retire", try await h.browser().post("/signing-keys/retire", [("key", "x")]))
        }
    }

    @Test(arguments: TestDatabase.all)
    func anotherAuthorityReadsNoneAndASystemAdministratorOnlyReads(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let sofia = try await h.supervisor("sofia")
            try #require(try await sofia.administer("/signing-keys", [], from: "/signing-keys").status == 200)
            try #require(try await sofia.administer("/signing-keys", [], from: "/signing-keys").status == 200)
            _ = try await AuthorityStore(database: h.verificationDatabase).create(
                id: "north", settings: .init(name: "North", families: [.cwa, .covidShield]), now: h.clock.now())
            let nora = try await h.supervisor("nora", authority: "north")

            // Nora sees only her authority's (none), and cannot retire Sofia's published version.
            let theirs = try await nora.get("/signing-keys")
            #expect(theirs.status == 200 && theirs.text.contains(#"id="no-signing-keys""#) && !theirs.text.contains("default-v"))
            #expect(theirs.text.contains("/jwks/north"))
            let refused = try await nora.administer("/signing-keys/retire", [("key", "default-v1")], from: "/signing-keys")
            #expect(refused.status == 404 && refused.text.contains(Language.en.signingKeyTexts.refusedUnknown))
            #expect(try await Self.published(h, "default") == ["default-v2", "default-v1"])
            // Her new version is her authority's, numbered on its own.
            let hers = try await nora.administer("/signing-keys", [], from: "/signing-keys")
            #expect(hers.text.contains("north-v1 signs from now on.") && !hers.text.contains("default-v"))

            // Sam reads every authority's versions, with their authority, and changes none.
            let sam = try await h.systemAdministrator("sam")
            let national = try await sam.get("/signing-keys")
            #expect(national.status == 200 && national.text.contains(#"id="nav-signing-keys""#))
            #expect(national.text.contains("default-v2") && national.text.contains("default-v1") && national.text.contains("north-v1"))
            #expect(!national.text.contains(#"id="make-signing-key""#) && !national.text.contains(#"id="retire-"#))
            #expect(try await sam.administer("/signing-keys", [], from: "/signing-keys").status == 403)
            #expect(try await sam.administer("/signing-keys/retire", [("key", "default-v1")], from: "/signing-keys").status == 403)
            #expect(try await Self.published(h, "default") == ["default-v2", "default-v1"])
            #expect(try await Self.published(h, "north") == ["north-v1"])
        }
    }

    /// Without the operator's sealing key nothing is made, and the page says why; verification unreachable, 503.
    @Test(arguments: [TestDatabase.sqlite])
    func anInstallationThatCannotSealSaysSo(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, verification: ["SIGNING_KEY_ENCRYPTION_KEY_FILE": "", "ENX_ENABLED": "false"]) { h in
            let sofia = try await h.supervisor("sofia")
            let refused = try await sofia.administer("/signing-keys", [], from: "/signing-keys")
            Covers.status(503, of: "POST /signing-keys", refused)
            #expect(refused.text.contains(Language.en.signingKeyTexts.refusedUnavailable) && refused.text.contains(#"id="no-signing-keys""#))
        }
        try await PortalHarness.run(on: kind, portal: ["VERIFICATION_URL": "http://127.0.0.1:1", "VERIFICATION_ATTEMPTS": "1"]) { h in
            let sofia = try await h.supervisor("sofia")
            Covers.status(503, of: "GET /signing-keys", try await sofia.get("/signing-keys"), error: "unavailable")
            let csrf = try PortalBrowser.csrf(in: try await sofia.get("/password"))
            Covers.status(503, of: "POST /signing-keys/retire", try await sofia.post("/signing-keys/retire", [("csrf", csrf), ("key", "default-v1")]), error: "unavailable")
        }
    }
}
