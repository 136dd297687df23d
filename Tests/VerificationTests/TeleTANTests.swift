import ExposureCore
import ExposureTestSupport
import Foundation
import JWTKit
import Testing
@testable import Verification
@testable import VerificationDomain

@Suite struct TeleTANTests {
    @Test(arguments: TestDatabase.all)
    func anOfficerIssuesATeleTANThatRegistersOnce(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let response = try await h.createTeleTAN(token: try await h.officerToken(roles: ["c19hotline"]))
            Covers.status(201, of: "POST /version/v1/tan/teletan", response)
            let teleTAN = try #require(response.json["value"] as? String)
            #expect(Codes.isValidTeleTAN(teleTAN))
            let registered = try await h.register(teleTAN: teleTAN)
            #expect(registered.status == 201)
            try #require(try await h.register(teleTAN: teleTAN).status == 400)
            // teleTAN sessions are positive, as of their creation.
            let token = try #require(registered.json["registrationToken"] as? String)
            let result = try await h.testResult(token)
            #expect(result.status == 200)
            #expect(result.json["testResult"] as? Int == 2)
            #expect(result.json["sc"] as? Int == Int(h.clock.now().epochSeconds))
        }
    }

    @Test(arguments: TestDatabase.all)
    func testTeleTANsExpireAfterAnHourEventOnesAfterTwoDays(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let test = try await h.newTeleTAN(type: "TEST")
            let event = try await h.newTeleTAN(type: "EVENT")
            h.clock.advance(by: 3601)
            try #require(try await h.register(teleTAN: test).status == 400)
            try #require(try await h.register(teleTAN: event).status == 201)
            let late = try await h.newTeleTAN(type: "EVENT")
            h.clock.advance(by: 2 * 86400 + 1)
            try #require(try await h.register(teleTAN: late).status == 400)
        }
    }

    @Test(arguments: TestDatabase.all)
    func tokensAreCheckedForSignatureExpiryAndRole(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            try #require(try await h.createTeleTAN(token: nil).status == 401)
            try #require(try await h.createTeleTAN(token: "not.a.jwt").status == 401)
            let expired = try await h.officerToken(roles: ["c19hotline"], expiresIn: -120)
            try #require(try await h.createTeleTAN(token: expired).status == 401)
            let foreign = try await h.officerToken(roles: ["c19hotline"], key: ES256PrivateKey())
            try #require(try await h.createTeleTAN(token: foreign).status == 401)
            let noRole = try await h.officerToken(roles: ["offline_access"])
            let refused = try await h.createTeleTAN(token: noRole)
            Covers.status(401, of: "POST /version/v1/tan/teletan", refused, error: "unauthorized")
            // EVENT needs its own role; TEST (explicit or default) needs c19hotline.
            let eventOnly = try await h.officerToken(roles: ["c19hotline_event"])
            try #require(try await h.createTeleTAN(token: eventOnly).status == 401)
            try #require(try await h.createTeleTAN(token: eventOnly, type: "TEST").status == 401)
            try #require(try await h.createTeleTAN(token: eventOnly, type: "EVENT").status == 201)
            let hotline = try await h.officerToken(roles: ["c19hotline"])
            try #require(try await h.createTeleTAN(token: hotline, type: "EVENT").status == 401)
            try #require(try await h.createTeleTAN(token: hotline, type: "OTHER").status == 400)
            try #require(try await h.rows("teletans") == 1)
        }
    }

    @Test(arguments: TestDatabase.all)
    func issuanceIsRateLimitedGlobally(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: ["TELETAN_RATE_LIMIT": "3", "TELETAN_RATE_WINDOW": "1h"]) { h in
            let token = try await h.officerToken(roles: ["c19hotline"], expiresIn: 7200)
            let issuedBefore = Self.issuedCount()
            for _ in 0..<3 { try #require(try await h.createTeleTAN(token: token).status == 201) }
            let limited = try await h.createTeleTAN(token: token)
            Covers.status(429, of: "POST /version/v1/tan/teletan", limited, error: "rate_limited")
            #expect(try await h.rows("teletans") == 3)
            // Other tests count too (one registry per process), so at least, not exactly.
            #expect(Self.issuedCount() >= issuedBefore + 3)
            h.clock.advance(by: 3601)
            try #require(try await h.createTeleTAN(token: token).status == 201)
            // The refusal is in the finished hour's tally, published with the next request counted.
            try #require(try await h.register(guid: VerificationHarness.hashedGUID(), fake: "1").status == 201)
            #expect(Self.rateLimitedLastHour(h, "teletan_issuance") == 1)
        }
    }

    @Test(arguments: TestDatabase.all)
    func failedTeleTANRegistrationsAreThrottled(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: ["TELETAN_SOURCE_FAILURE_BURST": "3", "TELETAN_SOURCE_FAILURES_PER_HOUR": "60"]) { h in
            let random = SeededRandomSource(seed: 11)
            for _ in 0..<3 {
                try #require(try await h.register(teleTAN: Codes.teleTAN(using: random)).status == 400)
            }
            // The source's bucket is empty: even a valid teleTAN from it waits.
            let valid = try await h.newTeleTAN()
            Covers.status(429, of: "POST /version/v1/registrationToken", try await h.register(teleTAN: valid))
            // GUID registrations are not affected.
            try #require(try await h.register(guid: VerificationHarness.hashedGUID()).status == 201)
            h.clock.advance(by: 60)
            try #require(try await h.register(teleTAN: valid).status == 201)
            // The refusal is in the hour's tally, published once the hour has ended.
            h.clock.advance(by: 3600)
            try #require(try await h.register(guid: VerificationHarness.hashedGUID(), fake: "1").status == 201)
            #expect(Self.rateLimitedLastHour(h, "teletan_failures") == 1)
        }
    }

    @Test(arguments: TestDatabase.all)
    func fiftyConcurrentRegistrationsOfOneTeleTANHaveOneWinner(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let teleTAN = try await h.newTeleTAN()
            let statuses = try await h.race { try await $0.register(teleTAN: teleTAN).status }
            #expect(statuses.filter { $0 == 201 }.count == 1)
            #expect(statuses.allSatisfy { $0 == 201 || $0 == 400 || $0 == 429 })
            // One registration in the database: one session, the teleTAN used once.
            #expect(try await h.rows("app_sessions") == 1)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aRepeatedRequestIsAnsweredWithTheSameTeleTANForTenMinutes(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let token = try await h.officerToken(roles: ["c19hotline", "c19hotline_event"], expiresIn: 7200)
            let key = Self.newKey()
            let first = try await h.createTeleTAN(token: token, idempotencyKey: key)
            #expect(first.status == 201)
            let teleTAN = try #require(first.json["value"] as? String)
            // This database's counter, not the process's metric, which the tests running beside this one move too.
            let countedBefore = try await h.issuanceCount(scope: TeleTANRateLimit.globalScope)
            h.clock.advance(by: 599)
            let again = try await h.createTeleTAN(token: token, type: "TEST", idempotencyKey: key)
            #expect(again.status == 201)
            #expect(again.json["value"] as? String == teleTAN)
            // Stored once, as a hash and sealed: neither the teleTAN nor the key is in the row.
            let rows = try await h.teleTANRows()
            try #require(rows.count == 1)
            let keys = try SecretHashKey.parseList(TestServices.teleTANHashKeys, variable: "TELETAN_HASH_KEYS")
            #expect(rows[0].hash == TypedSecretHasher(keys: keys).hash(teleTAN).hash)
            let sealed = try #require(rows[0].sealed)
            let keyHash = try #require(rows[0].requestKeyHash)
            #expect(!sealed.contains(teleTAN) && !sealed.contains(key) && keyHash != key && !keyHash.contains(key))
            #expect(try await h.issuanceCount(scope: TeleTANRateLimit.globalScope) == countedBefore)

            // The same key for the other type, or after ten minutes, is a reuse; other keys and no key get new teleTANs.
            let otherType = try await h.createTeleTAN(token: token, type: "EVENT", idempotencyKey: key)
            Covers.status(400, of: "POST /version/v1/tan/teletan", otherType, error: "idempotency_key_reused")
            let otherKey = try await h.createTeleTAN(token: token, idempotencyKey: Self.newKey())
            let withoutKey = try await h.createTeleTAN(token: token)
            let withoutKeyAgain = try await h.createTeleTAN(token: token)
            let values = Set([teleTAN] + [otherKey, withoutKey, withoutKeyAgain].compactMap { $0.json["value"] as? String })
            #expect(values.count == 4)
            h.clock.advance(by: 1)
            let late = try await h.createTeleTAN(token: token, idempotencyKey: key)
            #expect(late.status == 400)
            #expect(late.json["error"] as? String == "idempotency_key_reused")
            #expect(try await h.teleTANRows().count == 4)

            // The teleTAN answered twice registers once.
            try #require(try await h.register(teleTAN: teleTAN).status == 201)
            try #require(try await h.register(teleTAN: teleTAN).status == 400)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aRepeatIsAnsweredAtTheLimitAndCountsNothingAgainstIt(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: ["TELETAN_RATE_LIMIT": "2", "TELETAN_RATE_WINDOW": "1h"]) { h in
            let token = try await h.officerToken(roles: ["c19hotline"], expiresIn: 7200)
            let key = Self.newKey()
            let teleTAN = try #require(try await h.createTeleTAN(token: token, idempotencyKey: key).json["value"] as? String)
            #expect(try await h.createTeleTAN(token: token, idempotencyKey: key).json["value"] as? String == teleTAN)
            // The repeat counted nothing: one more teleTAN fits, then the limit holds, but not for the repeat.
            try #require(try await h.createTeleTAN(token: token, idempotencyKey: Self.newKey()).status == 201)
            try #require(try await h.createTeleTAN(token: token, idempotencyKey: Self.newKey()).status == 429)
            let atLimit = try await h.createTeleTAN(token: token, idempotencyKey: key)
            #expect(atLimit.status == 201)
            #expect(atLimit.json["value"] as? String == teleTAN)
        }
    }

    @Test(arguments: TestDatabase.all)
    func concurrentRepeatsOfOneRequestShareOneTeleTAN(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let token = try await h.officerToken(roles: ["c19hotline"])
            let key = Self.newKey()
            let answers = try await concurrently(8) { try await h.createTeleTAN(token: token, idempotencyKey: key) }
            #expect(answers.map(\.status) == Array(repeating: 201, count: 8))
            #expect(Set(answers.compactMap { $0.json["value"] as? String }).count == 1)
            #expect(try await h.teleTANRows().count == 1)
        }
    }

    @Test(arguments: TestDatabase.all)
    func malformedIdempotencyKeysAreRefusedAndIssueNothing(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let token = try await h.officerToken(roles: ["c19hotline"])
            let key = Self.newKey()
            for bad in ["", "0", String(key.dropLast()), key + "0", key.uppercased(), String(key.dropLast()) + "g", UUID().uuidString] {
                let refused = try await h.createTeleTAN(token: token, idempotencyKey: bad)
                #expect(refused.status == 400, "\(bad)")
                #expect(refused.json["error"] as? String == "invalid_idempotency_key", "\(bad)")
            }
            #expect(try await h.teleTANRows().isEmpty)
            // Without the role, the key is never looked at.
            let noRole = try await h.officerToken(roles: ["offline_access"])
            #expect(try await h.createTeleTAN(token: noRole, idempotencyKey: "bad").status == 401)
        }
    }

    static func newKey() -> String {
        (0..<16).map { _ in UInt8.random(in: 0...255) }.hexString
    }

    @Test func aSealedTeleTANOpensOnlyWithItsRequestsKey() throws {
        let random = SeededRandomSource(seed: 5)
        let key = TeleTANRequestKey(idempotencyKey: Self.newKey())
        let sealed = try key.seal("Q2K7M9PXRB", using: random)
        #expect(key.open(sealed) == "Q2K7M9PXRB")
        #expect(TeleTANRequestKey(idempotencyKey: Self.newKey()).open(sealed) == nil)
        // Damaged anywhere, it does not open.
        var bytes = try #require([UInt8](hex: sealed))
        bytes[bytes.count / 2] ^= 1
        #expect(key.open(bytes.hexString) == nil)
        #expect(key.open("not hex") == nil)
        // Sealed twice, it looks different each time (a fresh nonce), and the lookup hash is stable.
        #expect(try key.seal("Q2K7M9PXRB", using: random) != sealed)
        let text = Self.newKey()
        #expect(TeleTANRequestKey(idempotencyKey: text).lookupHash == TeleTANRequestKey(idempotencyKey: text).lookupHash)
        #expect(TeleTANRequestKey(idempotencyKey: text).lookupHash != key.lookupHash)
        #expect(key.lookupHash.count == 64)
    }

    @Test func rateLimitDecisions() {
        let limit = TeleTANRateLimit(limit: 10, window: .seconds(60))
        #expect(limit.decide(issuedInWindow: 0) == .allowed)
        #expect(limit.decide(issuedInWindow: 6) == .allowed)
        #expect(limit.decide(issuedInWindow: 7) == .allowedNearLimit)
        #expect(limit.decide(issuedInWindow: 9) == .allowedNearLimit)
        #expect(limit.decide(issuedInWindow: 10) == .refused)
    }

    /// The teleTAN counters of this process's registry.
    static func issuedCount() -> Double {
        PrometheusText.count(in: PrometheusText.ofThisProcess(), name: "verification_teletans_issued_total", labels: ["type": "TEST"])
    }

    /// The refusals by `limit` in the last finished hour (`HourlyTally`).
    /// The refusals by `limit` in the last hour this test's verification published.
    static func rateLimitedLastHour(_ h: VerificationHarness, _ limit: String) -> Int64? {
        h.hours.last(.verification, "verification_rate_limited_last_hour", [("limit", limit)])
    }
}
