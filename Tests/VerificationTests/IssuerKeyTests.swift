import ExposureCore
import ExposureRules
import ExposureStatistics
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification
@testable import VerificationDomain

/// Issuer keys for supervisors (issue #60, `/version/v1/issuers`): a supervisor creates their authority's keys (the
/// token shown once), sees when each was last used and revokes it; another authority's supervisor sees and revokes
/// nothing of them, and an officer without the role nothing at all.
@Suite struct IssuerKeyTests {
    static let path = "/version/v1/issuers"

    static func bearer(_ token: String?) -> [(String, String)] {
        token.map { [("Authorization", "Bearer \($0)")] } ?? []
    }

    static func list(_ h: VerificationHarness, token: String?) async throws -> TestResponse {
        try await h.internal.get(path, headers: bearer(token))
    }

    static func create(_ h: VerificationHarness, _ body: [String: Any], token: String?) async throws -> TestResponse {
        try await h.internal.postJSON(path, body, headers: bearer(token))
    }

    static func revoke(_ h: VerificationHarness, _ name: String, token: String?) async throws -> TestResponse {
        try await h.internal.request(.DELETE, "\(path)/\(name)", headers: bearer(token))
    }

    static func keys(_ response: TestResponse) throws -> [[String: Any]] {
        try #require(response.json["issuers"] as? [[String: Any]])
    }

    @Test(arguments: TestDatabase.all)
    func aSupervisorCreatesSeesAndRevokesTheirAuthoritysKeys(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            try await h.addAuthority("ha-b")
            let sofia = try await h.officerToken(roles: [OfficerRoles.supervisor], subject: "sofia")
            let bert = try await h.officerToken(roles: [OfficerRoles.supervisor], subject: "bert", authority: "ha-b")
            let sam = try await h.officerToken(roles: [OfficerRoles.systemAdministrator], subject: "sam")

            let created = try await Self.create(h, ["name": "gis-1", "kind": "PROTEGO"], token: sofia)
            Covers.status(201, of: "POST /version/v1/issuers", created)
            let token = try #require(created.json["token"] as? String)
            #expect(IssuerToken.isWellFormed(token))
            let key = try #require(created.json["issuer"] as? [String: Any])
            #expect(key["region"] as? String == "PL" && key["authority"] as? String == "default" && key["createdBy"] as? String == "sofia")
            #expect(key["fingerprint"] as? String == String(IssuerToken.hash(token).prefix(12)) && key["lastUsedDay"] == nil)
            // Only its hash is kept.
            let stored = try await h.database.withConnection { try await $0.raw("SELECT token_hash FROM code_issuers").all() }
            #expect(try stored.map { try $0.decode(column: "token_hash", as: String.self) } == [IssuerToken.hash(token)])
            try #require(try await Self.create(h, ["name": "b-key", "kind": "COVIDSHIELD"], token: bert).status == 201)

            // The key works on the issuer listener, and its day of use is noted.
            try #require(try await h.callable("/generateCodesBatch", #"{"data":{"numberOfCodes":2,"duration":1800}}"#, token: token).status == 200)
            let listed = try await Self.list(h, token: sofia)
            Covers.status(200, of: "GET /version/v1/issuers", listed)
            let own = try Self.keys(listed)
            #expect(own.map { $0["name"] as? String } == ["gis-1"])
            #expect(own.first?["lastUsedDay"] as? String == StatisticsDay(of: h.clock.now()).description)
            #expect(!listed.text.contains(token))
            #expect(try Self.keys(try await Self.list(h, token: bert)).map { $0["name"] as? String } == ["b-key"])
            #expect(try Self.keys(try await Self.list(h, token: sam)).map { $0["name"] as? String } == ["b-key", "gis-1"])

            // Another authority's supervisor cannot revoke it; an officer without the role may do nothing.
            Covers.status(404, of: "DELETE /version/v1/issuers/{issuerName}", try await Self.revoke(h, "gis-1", token: bert), error: "unknown_issuer")
            let hanna = try await h.officerToken(roles: ["c19hotline"], subject: "hanna")
            Covers.status(401, of: "GET /version/v1/issuers", try await Self.list(h, token: hanna), error: "unauthorized")
            Covers.status(401, of: "POST /version/v1/issuers", try await Self.create(h, ["name": "mine", "kind": "PROTEGO"], token: hanna), error: "unauthorized")
            Covers.status(401, of: "DELETE /version/v1/issuers/{issuerName}", try await Self.revoke(h, "gis-1", token: hanna), error: "unauthorized")
            try await Self.revoke(h, "gis-1", token: nil).expectError(401, "unauthorized")
            #expect(try await h.callable("/generateCode", #"{"data":{}}"#, token: token).status == 200)

            // Its supervisor revokes it: the token stops working at once.
            Covers.status(204, of: "DELETE /version/v1/issuers/{issuerName}", try await Self.revoke(h, "gis-1", token: sofia))
            #expect(try await h.callable("/generateCode", #"{"data":{}}"#, token: token).status == 403)
            try await Self.revoke(h, "gis-1", token: sofia).expectError(404, "unknown_issuer")
            Covers.status(400, of: "DELETE /version/v1/issuers/{issuerName}", try await Self.revoke(h, "has%20space", token: sofia))
        }
    }

    @Test(arguments: TestDatabase.all)
    func aKeyIsCheckedAgainstItsAuthorityAndTheInstallation(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            try await h.addAuthority("cwa-only", families: "cwa")
            try await h.addAuthority("ontario", families: "covidshield,protego", regions: "ON")
            let sofia = try await h.officerToken(roles: [OfficerRoles.supervisor], subject: "sofia")
            try #require(try await Self.create(h, ["name": "gis-1", "kind": "PROTEGO"], token: sofia).status == 201)

            let taken = try await Self.create(h, ["name": "gis-1", "kind": "COVIDSHIELD"], token: sofia)
            Covers.status(409, of: "POST /version/v1/issuers", taken, error: "issuer_exists")
            Covers.status(400, of: "POST /version/v1/issuers", try await Self.create(h, ["name": "has space", "kind": "PROTEGO"], token: sofia))
            try await Self.create(h, ["name": "late", "kind": "PROTEGO", "expiresAt": h.clock.now().epochSeconds], token: sofia)
                .expectError(400, "invalid_issuer")
            try await Self.create(h, ["name": "x", "kind": "LEMON"], token: sofia).expectError(400, "malformed_body")
            let cwaOnly = try await h.officerToken(roles: [OfficerRoles.supervisor], subject: "carl", authority: "cwa-only")
            try await Self.create(h, ["name": "x", "kind": "PROTEGO"], token: cwaOnly).expectError(400, "family_not_allowed")
            let ontario = try await h.officerToken(roles: [OfficerRoles.supervisor], subject: "olga", authority: "ontario")
            try await Self.create(h, ["name": "x", "kind": "PROTEGO"], token: ontario).expectError(400, "region_not_allowed")
            #expect(try await Self.create(h, ["name": "on-1", "kind": "COVIDSHIELD", "region": "ON"], token: ontario).status == 201)
            let form = try await h.internal.request(
                .POST, Self.path, headers: Self.bearer(sofia) + [("Content-Type", "text/plain")], body: Array("name=x".utf8))
            Covers.status(415, of: "POST /version/v1/issuers", form)
            #expect(try Self.keys(try await Self.list(h, token: sofia)).map { $0["name"] as? String } == ["gis-1"])
        }
    }

    /// A key with an expiry works until then, and is answered afterwards as a token that does not exist.
    @Test(arguments: TestDatabase.all)
    func anExpiredKeyIsAnUnknownOne(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let sofia = try await h.officerToken(roles: [OfficerRoles.supervisor], expiresIn: 86400, subject: "sofia")
            let until = h.clock.now().epochSeconds + 3600
            let created = try await Self.create(h, ["name": "ontario-ha", "kind": "COVIDSHIELD", "expiresAt": until], token: sofia)
            let token = try #require(created.json["token"] as? String)
            #expect(try await h.newKeyClaim(token: token).status == 200)
            h.clock.advance(by: 3600)
            #expect(try await h.newKeyClaim(token: token).status == 401)
            let listed = try Self.keys(try await Self.list(h, token: sofia))
            #expect(listed.first?["expiresAt"] as? Int == Int(until))
        }
    }

    /// A database that fails is a JSON 500, and a failed creation hands out no token.
    @Test(arguments: TestDatabase.all)
    func databaseFailuresAnswer500(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let sofia = try await h.officerToken(roles: [OfficerRoles.supervisor], subject: "sofia")
            try await FailureInjection.withoutTable("code_issuers", in: h.database) {
                Covers.status(500, of: "GET /version/v1/issuers", try await Self.list(h, token: sofia), error: "internal_error")
                let failed = try await Self.create(h, ["name": "gis-1", "kind": "PROTEGO"], token: sofia)
                Covers.status(500, of: "POST /version/v1/issuers", failed, error: "internal_error")
                #expect(!failed.text.contains(IssuerToken.prefix))
                Covers.status(500, of: "DELETE /version/v1/issuers/{issuerName}", try await Self.revoke(h, "gis-1", token: sofia), error: "internal_error")
            }
        }
    }
}
