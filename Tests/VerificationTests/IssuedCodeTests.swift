import ExposureCore
import ExposureRules
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification
@testable import VerificationDomain

/// Code status (issue #62): the officer's codes of the last 7 days with their status, to the hour; a supervisor's
/// view of their authority's; expiring a code read to the wrong person. Never the code itself, never another
/// authority's or (for an officer) another officer's.
@Suite struct IssuedCodeTests {
    static let path = "/version/v1/codes/issued"

    static func list(_ h: VerificationHarness, token: String?, scope: String? = nil) async throws -> TestResponse {
        try await h.internal.get(path + (scope.map { "?scope=\($0)" } ?? ""), headers: token.map { [("Authorization", "Bearer \($0)")] } ?? [])
    }

    static func expire(_ h: VerificationHarness, _ id: String, token: String?) async throws -> TestResponse {
        try await h.internal.postJSON(path + "/expire", ["id": id], headers: token.map { [("Authorization", "Bearer \($0)")] } ?? [])
    }

    static func codes(_ response: TestResponse) throws -> [[String: Any]] {
        try #require(response.json["codes"] as? [[String: Any]])
    }

    @Test(arguments: TestDatabase.all)
    func anOfficerSeesTheirOwnCodesWithTheirStatusToTheHour(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let hanna = try await h.officerToken(roles: ["c19hotline", "c19hotline_event"], expiresIn: 30 * 86400, subject: "hanna")
            let otto = try await h.officerToken(roles: ["c19hotline"], expiresIn: 30 * 86400, subject: "otto")
            let teleTAN = try #require(try await h.createTeleTAN(token: hanna).json["value"] as? String)
            h.clock.advance(by: 60)
            try #require(try await h.createTeleTAN(token: hanna, type: "EVENT").status == 201)
            h.clock.advance(by: 60)
            let pin = try #require(try await h.issueCode("PROTEGO", token: hanna).json["code"] as? String)
            try #require(try await h.createTeleTAN(token: otto).status == 201)
            // A health-authority system's codes are its own to track.
            let issuer = try await h.addIssuer("gis-pl", kind: "protego")
            try #require(try await h.callable("/generateCodesBatch", #"{"data":{"numberOfCodes":2,"duration":1800}}"#, token: issuer).status == 200)

            let fresh = try await Self.list(h, token: hanna)
            Covers.status(200, of: "GET /version/v1/codes/issued", fresh)
            let listed = try Self.codes(fresh)
            #expect(listed.map { $0["kind"] as? String } == ["PROTEGO", "EVENT", "TEST"])
            #expect(listed.allSatisfy { $0["status"] as? String == "unused" && $0["officer"] as? String == "hanna" && $0["usedHour"] == nil })
            #expect(listed.allSatisfy { Codes.isUUIDv4($0["id"] as? String ?? "") })
            #expect(!fresh.text.contains(teleTAN) && !fresh.text.contains(pin))
            #expect(try Self.codes(try await Self.list(h, token: otto)).count == 1)

            // 33 minutes later the PIN's 30 minutes have run out, and the teleTAN (an hour) is registered: used, in
            // that hour.
            h.clock.advance(by: 33 * 60)
            let registeredAt = h.clock.now().epochSeconds
            try #require(try await h.register(teleTAN: teleTAN).status == 201)
            let later = try Self.codes(try await Self.list(h, token: hanna))
            #expect(later.map { $0["status"] as? String } == ["expired", "unused", "used"])
            #expect(later[2]["usedHour"] as? Int == Int(registeredAt / 3600 * 3600))
            // After 7 days they are no longer listed.
            h.clock.advance(by: 7 * 86400)
            #expect(try Self.codes(try await Self.list(h, token: hanna)).isEmpty)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aSupervisorSeesTheirAuthoritysCodesAndNoOtherAuthoritys(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            try await h.addAuthority("ha-b")
            let hanna = try await h.officerToken(roles: ["c19hotline"], subject: "hanna")
            let sofia = try await h.officerToken(roles: [OfficerRoles.supervisor], subject: "sofia")
            let bert = try await h.officerToken(roles: ["c19hotline", OfficerRoles.supervisor], subject: "bert", authority: "ha-b")
            try #require(try await h.createTeleTAN(token: hanna).status == 201)
            try #require(try await h.issueCode("COVIDSHIELD", token: hanna).status == 201)
            try #require(try await h.createTeleTAN(token: bert).status == 201)

            let ofDefault = try Self.codes(try await Self.list(h, token: sofia, scope: "authority"))
            #expect(ofDefault.map { $0["officer"] as? String } == ["hanna", "hanna"])
            #expect(try Self.codes(try await Self.list(h, token: sofia)).isEmpty, "sofia issued none herself")
            let ofB = try Self.codes(try await Self.list(h, token: bert, scope: "authority"))
            #expect(ofB.map { $0["officer"] as? String } == ["bert"])

            // Only a supervisor sees the authority's; a scope that is none is a 400; no token, no list.
            Covers.status(401, of: "GET /version/v1/codes/issued", try await Self.list(h, token: hanna, scope: "authority"), error: "unauthorized")
            Covers.status(400, of: "GET /version/v1/codes/issued", try await Self.list(h, token: hanna, scope: "everyone"))
            try await Self.list(h, token: nil).expectError(401, "unauthorized")
            try await Self.list(h, token: try await h.officerToken(roles: ["c19hotline"], authority: "nowhere")).expectError(401, "unknown_authority")
        }
    }

    @Test(arguments: TestDatabase.all)
    func aCodeReadToTheWrongPersonIsExpiredByItsOfficerOrTheirSupervisor(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            try await h.addAuthority("ha-b")
            let hanna = try await h.officerToken(roles: ["c19hotline"], subject: "hanna")
            let otto = try await h.officerToken(roles: ["c19hotline"], subject: "otto")
            let sofia = try await h.officerToken(roles: [OfficerRoles.supervisor], subject: "sofia")
            let bert = try await h.officerToken(roles: ["c19hotline", OfficerRoles.supervisor], subject: "bert", authority: "ha-b")
            let pin = try #require(try await h.issueCode("PROTEGO", token: hanna).json["code"] as? String)
            let teleTAN = try #require(try await h.createTeleTAN(token: hanna).json["value"] as? String)
            let listed = try Self.codes(try await Self.list(h, token: hanna))
            let pinID = try #require(listed.first { $0["kind"] as? String == "PROTEGO" }?["id"] as? String)
            let teleTANID = try #require(listed.first { $0["kind"] as? String == "TEST" }?["id"] as? String)

            // Another officer, and another authority's supervisor, find nothing of that id; nothing changes.
            Covers.status(404, of: "POST /version/v1/codes/issued/expire", try await Self.expire(h, pinID, token: otto), error: "unknown_code")
            try await Self.expire(h, pinID, token: bert).expectError(404, "unknown_code")
            try await Self.expire(h, UUID().uuidString.lowercased(), token: hanna).expectError(404, "unknown_code")
            Covers.status(400, of: "POST /version/v1/codes/issued/expire", try await Self.expire(h, "not-an-id", token: hanna), error: "invalid_id")
            Covers.status(401, of: "POST /version/v1/codes/issued/expire", try await Self.expire(h, pinID, token: nil), error: "unauthorized")
            let form = try await h.internal.request(
                .POST, Self.path + "/expire", headers: [("Authorization", "Bearer \(hanna)"), ("Content-Type", "text/plain")], body: Array("id".utf8)
            )
            Covers.status(415, of: "POST /version/v1/codes/issued/expire", form)

            // Its officer expires the PIN: it can no longer be redeemed, and reads expired.
            let expired = try await Self.expire(h, pinID, token: hanna)
            Covers.status(204, of: "POST /version/v1/codes/issued/expire", expired)
            #expect(try await h.redeemCode("PROTEGO", pin).status == 404)
            #expect(try Self.codes(try await Self.list(h, token: hanna)).first { $0["id"] as? String == pinID }?["status"] as? String == "expired")
            Covers.status(409, of: "POST /version/v1/codes/issued/expire", try await Self.expire(h, pinID, token: hanna), error: "code_not_live")

            // The supervisor of the officer's authority expires the teleTAN: it can no longer be registered.
            #expect(try await Self.expire(h, teleTANID, token: sofia).status == 204)
            #expect(try await h.register(teleTAN: teleTAN).status == 400)
            // A used code is not expired: the teleTAN of another is registered first.
            let used = try #require(try await h.createTeleTAN(token: hanna).json["value"] as? String)
            try #require(try await h.register(teleTAN: used).status == 201)
            let usedID = try #require(try Self.codes(try await Self.list(h, token: hanna)).first { $0["status"] as? String == "used" }?["id"] as? String)
            try await Self.expire(h, usedID, token: hanna).expectError(409, "code_not_live")
        }
    }

    /// A subject is unique only within its token issuer: `hanna` of a second identity provider that verification
    /// trusts is someone else, who neither sees nor ends the first one's codes (both are of the default authority).
    @Test(arguments: TestDatabase.all)
    func anOfficerOfTheSameNameAtAnotherIdentityProviderSeesAndEndsNothing(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let hanna = try await h.officerToken(roles: ["c19hotline"], subject: "hanna")
            let namesake = try await h.officerToken(roles: ["c19hotline"], subject: "hanna", issuer: VerificationHarness.secondOfficerIssuer)
            try #require(try await h.issueCode("PROTEGO", token: hanna).status == 201)
            try #require(try await h.createTeleTAN(token: hanna).status == 201)
            let ids = try Self.codes(try await Self.list(h, token: hanna)).compactMap { $0["id"] as? String }
            try #require(ids.count == 2)

            let seen = try await Self.list(h, token: namesake)
            #expect(seen.status == 200)
            #expect(try Self.codes(seen).isEmpty)
            for id in ids {
                try await Self.expire(h, id, token: namesake).expectError(404, "unknown_code")
            }
            #expect(try Self.codes(try await Self.list(h, token: hanna)).allSatisfy { $0["status"] as? String == "unused" })
            // The namesake's own code is theirs alone.
            try #require(try await h.createTeleTAN(token: namesake).status == 201)
            #expect(try Self.codes(try await Self.list(h, token: namesake)).count == 1)
            #expect(try Self.codes(try await Self.list(h, token: hanna)).count == 2)
        }
    }

    /// A database that fails is a JSON 500: the list is not answered in part, and a failed expiry leaves the code live.
    @Test(arguments: TestDatabase.all)
    func databaseFailuresAnswer500AndChangeNothing(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let hanna = try await h.officerToken(roles: ["c19hotline"], subject: "hanna")
            let pin = try #require(try await h.issueCode("PROTEGO", token: hanna).json["code"] as? String)
            let id = try #require(try Self.codes(try await Self.list(h, token: hanna)).first?["id"] as? String)
            try await FailureInjection.withoutTable("one_time_codes", in: h.database) {
                Covers.status(500, of: "GET /version/v1/codes/issued", try await Self.list(h, token: hanna), error: "internal_error")
            }
            try await FailureInjection.fail(.update, on: "one_time_codes", in: h.database)
            Covers.status(500, of: "POST /version/v1/codes/issued/expire", try await Self.expire(h, id, token: hanna), error: "internal_error")
            try await FailureInjection.remove(from: "one_time_codes", in: h.database)
            #expect(try await h.redeemCode("PROTEGO", pin).status == 200)
        }
    }
}
