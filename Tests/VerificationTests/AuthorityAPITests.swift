import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification
@testable import VerificationDomain

/// Issue #60, item 4: the portal administers the health authorities through `/version/v1/authorities` with an
/// officer's token. A system administrator (`c19sysadmin`) reads and changes every authority; any other officer reads
/// only their own, and another authority's id is answered as one that does not exist.
@Suite struct AuthorityAPITests {
    static let list = "/version/v1/authorities"
    static func one(_ id: String) -> String { "/version/v1/authorities/\(id)" }

    static func bearer(_ token: String?) -> [(String, String)] {
        token.map { [("Authorization", "Bearer \($0)")] } ?? []
    }

    static func get(_ h: VerificationHarness, _ path: String, token: String?) async throws -> TestResponse {
        try await h.internal.get(path, headers: bearer(token))
    }

    static func post(_ h: VerificationHarness, _ body: [String: Any], token: String?) async throws -> TestResponse {
        try await h.internal.postJSON(list, body, headers: bearer(token))
    }

    static func put(_ h: VerificationHarness, _ id: String, _ body: Any, token: String?) async throws -> TestResponse {
        let bytes = Array(try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]))
        return try await h.internal.request(.PUT, one(id), headers: bearer(token) + [("Content-Type", "application/json")], body: bytes)
    }

    /// A valid body of `POST /version/v1/authorities`.
    static func newAuthority(_ id: String, _ changes: [String: Any] = [:]) -> [String: Any] {
        ["id": id, "name": "Health authority \(id)", "regions": ["ON"], "families": ["cwa", "covidshield"], "teleTansPerHour": 10, "disabled": false]
            .merging(changes) { $1 }
    }

    static func ids(_ answer: TestResponse) -> [String] {
        (answer.json["authorities"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    @Test(arguments: TestDatabase.all)
    func aSysadminSeesEveryAuthorityAnOfficerOnlyTheirOwn(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            try await h.addAuthority("ha-a", families: "cwa", regions: "ON,QC", perHour: 5, perDay: 50)
            try await h.addAuthority("ha-b")
            let sysadmin = try await h.officerToken(roles: [OfficerRoles.systemAdministrator])
            let officerOfA = try await h.officerToken(roles: ["c19hotline"], authority: "ha-a")

            let all = try await Self.get(h, Self.list, token: sysadmin)
            Covers.status(200, of: "GET /version/v1/authorities", all)
            #expect(Self.ids(all) == ["default", "ha-a", "ha-b"])
            let own = try await Self.get(h, Self.list, token: officerOfA)
            #expect(Self.ids(own) == ["ha-a"])
            let a = try await Self.get(h, Self.one("ha-a"), token: officerOfA)
            Covers.status(200, of: "GET /version/v1/authorities/{authorityId}", a)
            #expect(a.json["name"] as? String == "Authority ha-a")
            #expect(a.json["regions"] as? [String] == ["ON", "QC"] && a.json["families"] as? [String] == ["cwa"])
            #expect(a.json["teleTansPerHour"] as? Int == 5 && a.json["teleTansPerDay"] as? Int == 50 && a.json["disabled"] as? Bool == false)
            #expect(a.json["createdAt"] as? Int == Int(h.clock.now().epochSeconds))
            // Another authority's is answered as one that does not exist.
            let other = try await Self.get(h, Self.one("ha-b"), token: officerOfA)
            Covers.status(404, of: "GET /version/v1/authorities/{authorityId}", other, error: "unknown_authority")
            let missing = try await Self.get(h, Self.one("nowhere"), token: officerOfA)
            #expect(missing.status == 404 && missing.text == other.text)
            #expect(try await Self.get(h, Self.one("ha-b"), token: sysadmin).status == 200)
            try await Self.get(h, Self.one("nowhere"), token: sysadmin).expectError(404, "unknown_authority")
            let badID = try await Self.get(h, Self.one("HA_B"), token: sysadmin)
            Covers.status(400, of: "GET /version/v1/authorities/{authorityId}", badID, error: "invalid_authority")

            let bare = try await Self.get(h, Self.list, token: nil)
            Covers.status(401, of: "GET /version/v1/authorities", bare, error: "unauthorized")
            let expired = try await h.officerToken(roles: [OfficerRoles.systemAdministrator], expiresIn: -3600)
            Covers.status(401, of: "GET /version/v1/authorities/{authorityId}", try await Self.get(h, Self.one("ha-a"), token: expired), error: "unauthorized")
            let unknown = try await h.officerToken(roles: ["c19hotline"], authority: "nowhere")
            try await Self.get(h, Self.list, token: unknown).expectError(401, "unknown_authority")
        }
    }

    @Test(arguments: TestDatabase.all)
    func onlyASysadminCreatesAnAuthorityWithValidSettings(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let sysadmin = try await h.officerToken(roles: [OfficerRoles.systemAdministrator])
            let supervisor = try await h.officerToken(roles: ["c19hotline", "c19supervisor"])
            let refused = try await Self.post(h, Self.newAuthority("ha-a"), token: supervisor)
            Covers.status(401, of: "POST /version/v1/authorities", refused, error: "unauthorized")
            try await Self.post(h, Self.newAuthority("ha-a"), token: nil).expectError(401, "unauthorized")

            let created = try await Self.post(h, Self.newAuthority("ha-a", ["issuerCodesPerHour": 40]), token: sysadmin)
            Covers.status(201, of: "POST /version/v1/authorities", created)
            #expect(created.json["id"] as? String == "ha-a" && created.json["families"] as? [String] == ["cwa", "covidshield"])
            #expect(created.json["teleTansPerHour"] as? Int == 10 && created.json["teleTansPerDay"] == nil)
            #expect(created.json["issuerCodesPerHour"] as? Int == 40 && created.json["issuerCodesPerDay"] == nil)
            let duplicate = try await Self.post(h, Self.newAuthority("ha-a", ["name": "Another"]), token: sysadmin)
            Covers.status(409, of: "POST /version/v1/authorities", duplicate, error: "authority_exists")

            let invalid: [[String: Any]] = [
                Self.newAuthority("-ha"), Self.newAuthority("HA-B"), Self.newAuthority(String(repeating: "a", count: 33)), Self.newAuthority(""),
                Self.newAuthority("ha-b", ["name": ""]), Self.newAuthority("ha-b", ["name": "   "]),
                Self.newAuthority("ha-b", ["name": String(repeating: "n", count: 101)]),
                Self.newAuthority("ha-b", ["regions": ["O N"]]), Self.newAuthority("ha-b", ["regions": ["ON", "ON"]]),
                Self.newAuthority("ha-b", ["regions": (0..<33).map { "R\($0)" }]),
                Self.newAuthority("ha-b", ["families": ["cwa", "cwa"]]), Self.newAuthority("ha-b", ["teleTansPerHour": 0]),
                Self.newAuthority("ha-b", ["teleTansPerDay": 10_000_001]), Self.newAuthority("ha-b", ["issuerCodesPerHour": 0]),
                Self.newAuthority("ha-b", ["issuerCodesPerHour": 1_000_001]), Self.newAuthority("ha-b", ["issuerCodesPerDay": 10_000_001]),
            ]
            var answers: [TestResponse] = []
            for body in invalid { answers.append(try await Self.post(h, body, token: sysadmin)) }
            Covers.status(400, of: "POST /version/v1/authorities", among: answers, error: "invalid_authority")
            // Bodies the document's types refuse: a family that is none, a number that is text, a field left out.
            for body in [
                Self.newAuthority("ha-b", ["families": ["cwa", "lemon"]]), Self.newAuthority("ha-b", ["teleTansPerHour": "ten"]),
                Self.newAuthority("ha-b", ["teleTansPerHour": 5_000_000_000]), Self.newAuthority("ha-b").filter { $0.key != "disabled" },
            ] {
                let answer = try await Self.post(h, body, token: sysadmin)
                #expect(answer.status == 400, "\(body): \(answer.status) \(answer.text)")
            }
            #expect(try await h.rows("authorities") == 2)
        }
    }

    @Test(arguments: TestDatabase.all)
    func onlyASysadminChangesAnAuthorityAndItsOfficersFollow(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            try await h.addAuthority("ha-a")
            let sysadmin = try await h.officerToken(roles: [OfficerRoles.systemAdministrator])
            let officerOfA = try await h.officerToken(roles: ["c19hotline"], authority: "ha-a")
            var settings: [String: Any] = ["name": "Renamed", "regions": [], "families": ["covidshield"], "disabled": false]

            let refused = try await Self.put(h, "ha-a", settings, token: officerOfA)
            Covers.status(401, of: "PUT /version/v1/authorities/{authorityId}", refused, error: "unauthorized")
            let missing = try await Self.put(h, "nowhere", settings, token: sysadmin)
            Covers.status(404, of: "PUT /version/v1/authorities/{authorityId}", missing, error: "unknown_authority")
            let badID = try await Self.put(h, "Ha_A", settings, token: sysadmin)
            Covers.status(400, of: "PUT /version/v1/authorities/{authorityId}", badID, error: "invalid_authority")
            try await Self.put(h, "ha-a", settings.merging(["name": ""]) { $1 }, token: sysadmin).expectError(400, "invalid_authority")
            #expect(try await Self.put(h, "ha-a", settings.merging(["families": ["teletan"]]) { $1 }, token: sysadmin).status == 400)
            #expect(try await Self.put(h, "ha-a", ["name": "x"], token: sysadmin).status == 400)
            #expect(try await h.createTeleTAN(token: officerOfA).status == 201)

            let changed = try await Self.put(h, "ha-a", settings, token: sysadmin)
            Covers.status(200, of: "PUT /version/v1/authorities/{authorityId}", changed)
            #expect(changed.json["name"] as? String == "Renamed" && changed.json["families"] as? [String] == ["covidshield"])
            try await h.createTeleTAN(token: officerOfA).expectError(400, "family_not_allowed")
            settings["disabled"] = true
            #expect(try await Self.put(h, "ha-a", settings, token: sysadmin).json["disabled"] as? Bool == true)
            try await h.issueCode("COVIDSHIELD", token: officerOfA).expectError(401, "authority_disabled")
            // An officer of a disabled authority reads nothing of it either.
            try await Self.get(h, Self.one("ha-a"), token: officerOfA).expectError(401, "authority_disabled")
            // A system administrator's own authority is never read: one whose token names the disabled authority
            // still reads every authority and enables it again.
            let sysadminOfA = try await h.officerToken(roles: [OfficerRoles.systemAdministrator], authority: "ha-a")
            #expect(try await Self.get(h, Self.list, token: sysadminOfA).status == 200)
            settings["disabled"] = false
            #expect(try await Self.put(h, "ha-a", settings, token: sysadminOfA).status == 200)
            #expect(try await h.issueCode("COVIDSHIELD", token: officerOfA).status == 201)
        }
    }

    /// A database that cannot be read: every operation answers a JSON 500.
    @Test(arguments: TestDatabase.all)
    func everyOperationAnswers500WhenTheDatabaseFails(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let sysadmin = try await h.officerToken(roles: [OfficerRoles.systemAdministrator])
            let settings: [String: Any] = ["name": "Renamed", "regions": [], "families": ["cwa"], "disabled": false]
            try await FailureInjection.withoutTable("authorities", in: h.database) {
                Covers.status(500, of: "GET /version/v1/authorities", try await Self.get(h, Self.list, token: sysadmin), error: "internal_error")
                Covers.status(
                    500, of: "GET /version/v1/authorities/{authorityId}", try await Self.get(h, Self.one("default"), token: sysadmin), error: "internal_error"
                )
                Covers.status(500, of: "POST /version/v1/authorities", try await Self.post(h, Self.newAuthority("ha-a"), token: sysadmin), error: "internal_error")
                Covers.status(
                    500, of: "PUT /version/v1/authorities/{authorityId}", try await Self.put(h, "default", settings, token: sysadmin), error: "internal_error"
                )
            }
            #expect(try await h.rows("authorities") == 1)
        }
    }
}
