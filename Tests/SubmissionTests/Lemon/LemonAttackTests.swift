import ExposureCore
import ExposureTestSupport
import Foundation
import SQLKit
import SubmissionDomain
import Testing

@testable import SubmissionLemon

/// The attacks of issue #59 on the LEMON family, performed as an attacker would: an old authentication replayed, a
/// token alone changing a device under payload encryption, one device filling the aggregates, a deactivated device's
/// token, the push-token oracle, and push tokens read from the database.
@Suite struct LemonAttackTests {
    /// The device store as the service builds it (to read sealed push tokens back).
    static func store(_ h: LemonHarness) -> LemonDeviceStore {
        let keys = LemonServerKeys(encryption: LemonTestKeys.encryption, signing: LemonTestKeys.signing)
        return LemonDeviceStore(database: h.base.database, sealer: keys.sessionKeySealer, pushTokens: keys.pushTokenSealer)
    }

    static func count(_ h: LemonHarness, _ sql: String) async throws -> Int {
        try await h.base.database.withConnection { connection in
            try await connection.raw(SQLQueryString(sql)).first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    /// Register; authenticate with A; replay A (refused); authenticate with B; replay A again: refused as well, not a
    /// fresh access token (the store once remembered only the last seed). Seeds are forgotten only once their time
    /// is outside the signature window, where the time check refuses them.
    @Test(arguments: TestDatabase.all)
    func anOldAuthenticationIsNotAcceptedAfterANewerOne(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind) { h in
            let device = LemonTestDevice()
            _ = try await h.token(device)
            let first = device.authentication(now: h.clock.now())
            try await h.devices(first).expectEnvelope(201)
            try await h.devices(first).expectEnvelope(401)
            h.clock.advance(by: 10)
            try await h.devices(device.authentication(now: h.clock.now())).expectEnvelope(201)
            let replayed = try await h.devices(first)
            replayed.expectEnvelope(401)
            #expect(replayed.lemonData["accessToken"] == nil)
            // Past twice the window: the old seeds are gone from the table, and the old request is refused by its time.
            h.clock.advance(by: 2 * LemonDeviceRules.signatureWindow + 1)
            try await h.devices(device.authentication(now: h.clock.now())).expectEnvelope(201)
            try await h.devices(first).expectEnvelope(401)
            #expect(try await Self.count(h, "SELECT COUNT(*) AS n FROM lemon_accepted_seeds") == 1)
            // Deleting the device deletes its seeds.
            let token = try #require(try await h.devices(device.authentication(now: h.clock.now())).lemonData["accessToken"] as? String)
            try await h.send("DELETE", "/api/v1/devices", token: token).expectEnvelope(200)
            #expect(try await Self.count(h, "SELECT COUNT(*) AS n FROM lemon_accepted_seeds") == 0)
        }
    }

    /// With payload encryption on, an access token alone (stolen, or from a replayed authentication) deactivates and
    /// deletes nothing: every request but a GET needs a sealed body, and a sealed body made for one request does not
    /// open on another (the MAC is bound to the method, path and query).
    @Test(arguments: TestDatabase.all)
    func underPayloadEncryptionATokenAloneChangesNothing(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind, settings: ["LEMON_PAYLOAD_ENCRYPTION": "true"]) { h in
            let (token, id, _, keys) = try await LemonEncryptionTests.register(h, LemonTestDevice())
            let bearer = [("Authorization", "Bearer \(token)")]
            let off = "/api/v1/devices/active?status=false"
            #expect(try await h.client.request(.POST, off, headers: bearer).status == 400)
            #expect(try await h.client.request(.DELETE, "/api/v1/devices", headers: bearer).status == 400)
            #expect(try await h.client.request(.DELETE, "/api/v1/devices/push_token", headers: bearer).status == 400)
            // Sealed bodies the device sent elsewhere, moved onto these requests.
            let on = try keys.seal(nil, method: "POST", target: "/api/v1/devices/active?status=true")
            #expect(try await h.client.request(.POST, off, headers: bearer, body: on).status == 400)
            #expect(try await h.client.request(.DELETE, "/api/v1/devices", headers: bearer, body: on).status == 400)
            let survey = try keys.seal(LemonSurveyTests.seedExamples[0], method: "POST", target: "/api/v1/submission/covid")
            #expect(try await h.client.request(.POST, "/api/v1/devices/push_token", headers: bearer, body: survey).status == 400)
            #expect(try await Self.count(h, "SELECT COUNT(*) AS n FROM lemon_devices WHERE active = \(kind == .postgres ? "true" : "1")") == 1)
            #expect(try await Self.count(h, "SELECT COUNT(*) AS n FROM lemon_surveys") == 0)

            // The device itself, with its sealed (empty) bodies: done, the answers sealed.
            let turnedOff = try await h.client.request(.POST, off, headers: bearer, body: try keys.seal(nil, method: "POST", target: off))
            #expect(turnedOff.status == 200)
            #expect((try keys.open(turnedOff.text).json["meta"] as? [String: Any])?["code"] as? Int == 200)
            let deleted = try await h.client.request(.DELETE, "/api/v1/devices", headers: bearer, body: try keys.seal(nil, method: "DELETE", target: "/api/v1/devices"))
            #expect(deleted.status == 200)
            #expect(try await Self.count(h, "SELECT COUNT(*) AS n FROM lemon_devices WHERE id = '\(id)'") == 0)
        }
    }

    /// One access token sent 40 surveys, all stored: one device alone filled a cell past k. Now a device sends at
    /// most `LEMON_SURVEYS_PER_DEVICE_DAY` (3) a day, counted under a keyed hash that names neither it nor a survey.
    @Test(arguments: TestDatabase.all)
    func oneDeviceSendsAtMostTheDailyLimitOfSurveys(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind) { h in
            let device = LemonTestDevice()
            let token = try await h.token(device)
            let survey = LemonSurveyTests.seedExamples[1]
            for _ in 0..<3 { try await h.send("POST", "/api/v1/submission/covid", token: token, json: survey).expectEnvelope(201) }
            for _ in 0..<5 { try await h.send("POST", "/api/v1/submission/covid", token: token, json: survey).expectEnvelope(429) }
            // Another device has its own count.
            try await h.send("POST", "/api/v1/submission/covid", token: try await h.token(LemonTestDevice()), json: survey).expectEnvelope(201)
            #expect(try await Self.count(h, "SELECT COUNT(*) AS n FROM lemon_surveys") == 4)
            // The counters: a keyed hash, the day and a count; no device id, no survey id.
            let rows = try await h.base.database.withConnection { connection in try await connection.raw("SELECT * FROM lemon_survey_quota").all() }
            #expect(Set(rows.first?.allColumns ?? []) == ["counter", "day", "surveys"])
            let id = try LemonHarness.deviceID(ofToken: token)
            #expect(try rows.allSatisfy { try $0.decode(column: "counter", as: String.self) != id && !$0.decode(column: "counter", as: String.self).contains(id) })
            #expect(try rows.map { try $0.decode(column: "surveys", as: Int.self) }.sorted() == [1, 3])

            // The next day the device may send again, and the day before's counters are gone.
            h.clock.advance(by: 86_400)
            let tomorrow = try #require(try await h.devices(device.authentication(now: h.clock.now())).lemonData["accessToken"] as? String)
            try await h.send("POST", "/api/v1/submission/covid", token: tomorrow, json: survey).expectEnvelope(201)
            #expect(try await Self.count(h, "SELECT COUNT(*) AS n FROM lemon_survey_quota") == 1)
        }
    }

    /// A deactivated device's token reaches nothing but turning itself on again and deleting itself.
    @Test(arguments: TestDatabase.all)
    func aDeactivatedDevicesTokenIsRefused(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind) { h in
            let token = try await h.token(LemonTestDevice())
            try await h.send("POST", "/api/v1/devices/active?status=false", token: token).expectEnvelope(200)
            try await h.send("POST", "/api/v1/submission/covid", token: token, json: LemonSurveyTests.seedExamples[1]).expectEnvelope(401)
            try await h.send("GET", "/api/v1/symptoms", token: token).expectEnvelope(401)
            try await h.send("POST", "/api/v1/devices/push_token", token: token, json: ["pushToken": "token-12345"]).expectEnvelope(401)
            #expect(try await Self.count(h, "SELECT COUNT(*) AS n FROM lemon_surveys") == 0)
            try await h.send("POST", "/api/v1/devices/active?status=true", token: token).expectEnvelope(200)
            try await h.send("POST", "/api/v1/submission/covid", token: token, json: LemonSurveyTests.seedExamples[1]).expectEnvelope(201)
            try await h.send("POST", "/api/v1/devices/active?status=false", token: token).expectEnvelope(200)
            try await h.send("DELETE", "/api/v1/devices", token: token).expectEnvelope(200)
        }
    }

    /// Registering with another device's push token once answered 401 "The push token belongs to another device": an
    /// oracle for whether a token is registered. Now the token moves to the new device, and the answer is the same
    /// whether it was registered or not.
    @Test(arguments: TestDatabase.all)
    func aPushTokenOfAnotherDeviceMovesWithoutTelling(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind) { h in
            let token = "push-token-of-the-first-phone"
            let first = try await h.devices(LemonTestDevice().registration(now: h.clock.now(), pushToken: token))
            first.expectEnvelope(201)
            let second = try await h.devices(LemonTestDevice().registration(now: h.clock.now(), pushToken: token))
            let unknown = try await h.devices(LemonTestDevice().registration(now: h.clock.now(), pushToken: "push-token-nobody-has"))
            second.expectEnvelope(201)
            unknown.expectEnvelope(201)
            #expect(second.lemonData.keys.sorted() == unknown.lemonData.keys.sorted())
            #expect(second.json["meta"] as? NSDictionary == unknown.json["meta"] as? NSDictionary)
            let store = Self.store(h)
            let firstID = try LemonHarness.deviceID(ofToken: try #require(first.lemonData["accessToken"] as? String))
            let secondToken = try #require(second.lemonData["accessToken"] as? String)
            let secondID = try LemonHarness.deviceID(ofToken: secondToken)
            #expect(try await store.pushToken(id: firstID) == nil)
            #expect(try await store.pushToken(id: secondID) == token)
            // And back through `POST /api/v1/devices/push_token`, the same way.
            let firstToken = try #require(first.lemonData["accessToken"] as? String)
            try await h.send("POST", "/api/v1/devices/push_token", token: firstToken, json: ["pushToken": token]).expectEnvelope(201)
            #expect(try await store.pushToken(id: firstID) == token)
            #expect(try await store.pushToken(id: secondID) == nil)
        }
    }

    /// Push tokens were stored in plain text. Now no column holds one: it is sealed to its device and found by a keyed
    /// hash; a token stored in the clear before is sealed at start-up.
    @Test(arguments: TestDatabase.all)
    func pushTokensAreStoredOnlySealed(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind) { h in
            let token = "push-token-kept-secret-12345"
            let registered = try await h.devices(LemonTestDevice().registration(now: h.clock.now(), pushToken: token))
            registered.expectEnvelope(201)
            let id = try LemonHarness.deviceID(ofToken: try #require(registered.lemonData["accessToken"] as? String))
            func stored() async throws -> (plain: String?, index: String?, sealed: Data?) {
                try await h.base.database.withConnection { connection in
                    let row = try #require(try await connection.raw("""
                        SELECT push_token, push_token_index, sealed_push_token FROM lemon_devices WHERE id = \(bind: id)
                        """).first())
                    return (try row.decode(column: "push_token", as: String?.self), try row.decode(column: "push_token_index", as: String?.self),
                            try row.decode(column: "sealed_push_token", as: Data?.self))
                }
            }
            let row = try await stored()
            #expect(row.plain == nil)
            #expect(row.index?.contains(token) == false)
            let sealed = try #require(row.sealed)
            #expect(sealed.range(of: Data(token.utf8)) == nil)
            #expect(try await Self.store(h).pushToken(id: id) == token)

            // A row as migration 13 finds it: the token in the clear. Start-up seals it.
            try await h.base.database.withConnection { connection in
                try await connection.raw("""
                    UPDATE lemon_devices SET push_token = 'an-old-plain-token', push_token_index = NULL, sealed_push_token = NULL WHERE id = \(bind: id)
                    """).run()
            }
            #expect(try await Self.store(h).sealStoredPushTokens() == 1)
            #expect(try await stored().plain == nil)
            #expect(try await Self.store(h).pushToken(id: id) == "an-old-plain-token")
            #expect(try await Self.store(h).sealStoredPushTokens() == 0)
        }
    }
}
