import ExposureCore
import ExposureTestSupport
import Foundation
import SQLKit
import Testing
@testable import Verification
@testable import VerificationDomain

/// The one-time codes of the other app families over HTTP, as the portal issues them and the submission service's
/// adapters redeem them (`/version/v1/codes`, `/version/v1/codes/redeem`): every documented answer, expiry on the
/// injected clock, one-time redemption under concurrency, and the ProteGO upload credential.
@Suite struct OneTimeCodeTests {
    static let issue = "/version/v1/codes"
    static let redeem = "/version/v1/codes/redeem"

    @Test(arguments: TestDatabase.all)
    func aCovidShieldCodeIsIssuedAndRedeemedOnce(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let issuedAt = h.clock.now().epochSeconds
            let issued = try await h.issueCode("COVIDSHIELD", token: try await h.officerToken(roles: ["c19hotline"]))
            Covers.status(201, of: "POST /version/v1/codes", issued)
            let code = try #require(issued.json["code"] as? String)
            #expect(code.range(of: "^[0-9]{8}$", options: .regularExpression) != nil)
            #expect(issued.json["kind"] as? String == "COVIDSHIELD")
            #expect(issued.json["region"] as? String == "ON")
            #expect(issued.json["validUntil"] as? Int == Int(issuedAt) + 600)

            h.clock.advance(by: 120)
            let redeemed = try await h.redeemCode("COVIDSHIELD", code)
            Covers.status(200, of: "POST /version/v1/codes/redeem", redeemed)
            #expect(redeemed.json["region"] as? String == "ON")
            #expect(redeemed.json["issuedAt"] as? Int == Int(issuedAt))
            #expect(redeemed.json["uploadToken"] == nil)
            // Used: never again, and a ProteGO redemption of the same text finds nothing either.
            let again = try await h.redeemCode("COVIDSHIELD", code)
            Covers.status(404, of: "POST /version/v1/codes/redeem", again, error: "unknown_code")
            #expect(try await h.redeemCode("PROTEGO", code).status == 404)
            #expect(try await h.rows("tans") == 0)
        }
    }

    /// A code is dead at the end of its lifetime, used or not, and then answers like an unknown one.
    @Test(arguments: TestDatabase.all)
    func codesDieAfterTenAndThirtyMinutes(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let covidShield = [try await h.newCode("COVIDSHIELD"), try await h.newCode("COVIDSHIELD")]
            let proteGO = [try await h.newCode("PROTEGO"), try await h.newCode("PROTEGO")]
            h.clock.advance(by: 599)
            #expect(try await h.redeemCode("COVIDSHIELD", covidShield[0]).status == 200)
            h.clock.advance(by: 1)
            let late = try await h.redeemCode("COVIDSHIELD", covidShield[1])
            late.expectError(404, "unknown_code")
            #expect(late.json["message"] as? String == (try await h.redeemCode("COVIDSHIELD", "00000000")).json["message"] as? String)
            h.clock.advance(by: 1199)
            #expect(try await h.redeemCode("PROTEGO", proteGO[0]).status == 200)
            h.clock.advance(by: 1)
            try await h.redeemCode("PROTEGO", proteGO[1]).expectError(404, "unknown_code")
        }
    }

    /// Redeeming a PIN (any case) mints an upload credential in the same transaction: a TAN that the two-phase
    /// redemption spends only when an upload confirms it, refused after that and after 30 minutes.
    @Test(arguments: TestDatabase.all)
    func aProteGOPINMintsAnUploadTokenThatOnlyAConfirmedUploadSpends(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let pin = try await h.newCode("PROTEGO")
            #expect(OneTimeCodeKind.proteGO.isWellFormed(pin))
            let redeemed = try await h.redeemCode("PROTEGO", pin.lowercased())
            #expect(redeemed.status == 200)
            #expect(redeemed.json["region"] as? String == "PL")
            let token = try #require(redeemed.json["uploadToken"] as? String)
            #expect(Codes.isUUIDv4(token))
            // Stored as its SHA-256 only, from the PROTEGO source, with a registration nobody holds.
            let row = try #require(try await h.database.withConnection { connection in
                try await connection.raw("SELECT tan_hash, source, valid_until, registration_token_hash FROM tans").all().first
            })
            #expect(try row.decode(column: "tan_hash", as: String.self) == SecretHash.sha256Hex(token))
            #expect(try row.decode(column: "source", as: String.self) == "PROTEGO")
            #expect(try row.decode(column: "valid_until", as: Int64.self) == h.clock.now().epochSeconds + 1800)
            #expect(try row.decode(column: "registration_token_hash", as: String.self).count == 64)
            #expect(try await h.redeemCode("PROTEGO", pin).status == 404)

            // A failed upload releases its reservation: the token is still good. A confirmed one spends it.
            let failed = TanStoreReservationTests.key("failed")
            #expect(TanReservationEndpointTests.outcomes(try await h.internal.postJSON("/version/v1/tans/reserve", ["tans": [token], "reservationKeys": [failed]])) == ["reserved"])
            #expect(try await h.internal.postJSON("/version/v1/tans/release", ["reservationKeys": [failed]]).json["outcomes"] as? [String] == ["released"])
            let upload = TanStoreReservationTests.key("upload")
            let reserved = try await h.internal.postJSON("/version/v1/tans/reserve", ["tans": [token], "reservationKeys": [upload]])
            #expect(TanReservationEndpointTests.outcomes(reserved) == ["reserved"])
            #expect((reserved.json["outcomes"] as? [[String: Any]])?.first?["teleTanType"] == nil)
            #expect(try await h.internal.postJSON("/version/v1/tans/confirm", ["reservationKeys": [upload]]).json["outcomes"] as? [String] == ["confirmed"])
            #expect(TanReservationEndpointTests.outcomes(try await h.internal.postJSON("/version/v1/tans/reserve", ["tans": [token], "reservationKeys": [TanStoreReservationTests.key("replay")]])) == ["refused"])
            #expect(try await h.verify(token).status == 404)

            // Another PIN's token, unused for 30 minutes, is dead.
            let stale = try #require(try await h.redeemCode("PROTEGO", try await h.newCode("PROTEGO")).json["uploadToken"] as? String)
            h.clock.advance(by: 1800)
            #expect(TanReservationEndpointTests.outcomes(try await h.internal.postJSON("/version/v1/tans/reserve", ["tans": [stale], "reservationKeys": [TanStoreReservationTests.key("late")]])) == ["refused"])
        }
    }

    /// Only the stored form: HMAC-SHA256 under the teleTAN key of the kind and the code, with the key's id.
    @Test(arguments: TestDatabase.all)
    func codesAreStoredAsKeyedHashesOnly(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let code = try await h.newCode("COVIDSHIELD")
            let pin = try await h.newCode("PROTEGO")
            let rows = try await h.database.withConnection { connection in
                try await connection.raw("SELECT code_hash, hash_key_id, kind, region, issued_at, valid_until, redeemed_at FROM one_time_codes ORDER BY kind").all()
            }
            try #require(rows.count == 2)
            let hasher = TypedSecretHasher(keys: try SecretHashKey.parseList(TestServices.teleTANHashKeys, variable: "TELETAN_HASH_KEYS"))
            #expect(try rows[0].decode(column: "code_hash", as: String.self) == hasher.hash("COVIDSHIELD:\(code)").hash)
            #expect(try rows[1].decode(column: "code_hash", as: String.self) == hasher.hash("PROTEGO:\(pin)").hash)
            for row in rows {
                let hash = try row.decode(column: "code_hash", as: String.self)
                #expect(!hash.contains(code) && !hash.contains(pin))
                #expect(try row.decode(column: "hash_key_id", as: String.self) == "test")
                #expect(try row.decode(column: "redeemed_at", as: Int64?.self) == nil)
            }
            #expect(try rows.map { try $0.decode(column: "region", as: String.self) } == ["ON", "PL"])
        }
    }

    @Test(arguments: TestDatabase.all)
    func fiftyConcurrentRedemptionsOfOneCodeHaveOneWinner(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let pin = try await h.newCode("PROTEGO")
            let answers = try await h.race { try await $0.redeemCode("PROTEGO", pin) }
            #expect(answers.filter { $0.status == 200 }.count == 1)
            // The others are failed redemptions: the first 30 (the bucket) are looked up and not found, the rest wait.
            #expect(answers.allSatisfy { $0.status == 200 || $0.status == 404 || $0.status == 429 })
            // One upload credential minted.
            #expect(try await h.rows("tans") == 1)
        }
    }

    /// Officers need the hotline role, as for TEST teleTANs; callers need a service token.
    @Test(arguments: TestDatabase.all)
    func issuanceNeedsAServiceTokenAndAnOfficerWithTheRole(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let bare = TestHTTPClient(port: h.internal.port)
            let hotline = try await h.officerToken(roles: ["c19hotline"])
            let noCaller = try await bare.postJSON(Self.issue, ["kind": "COVIDSHIELD"], headers: [("Authorization", "Bearer \(hotline)")])
            Covers.status(401, of: "POST /version/v1/codes", noCaller, error: "unknown_caller")
            let noToken = try await h.issueCode("COVIDSHIELD", token: nil)
            Covers.status(401, of: "POST /version/v1/codes", noToken, error: "unauthorized")
            try await h.issueCode("PROTEGO", token: try await h.officerToken(roles: ["c19hotline_event"])).expectError(401, "unauthorized")
            try await h.issueCode("PROTEGO", token: try await h.officerToken(roles: ["c19hotline"], expiresIn: -120)).expectError(401, "unauthorized")
            let redeemNoCaller = try await bare.postJSON(Self.redeem, ["kind": "COVIDSHIELD", "code": "12345678"])
            Covers.status(401, of: "POST /version/v1/codes/redeem", redeemNoCaller, error: "unknown_caller")
            #expect(try await h.rows("one_time_codes") == 0)
            // Not on the app-facing listener.
            #expect(try await h.app.postJSON(Self.redeem, ["kind": "COVIDSHIELD", "code": "12345678"]).status == 404)
        }
    }

    @Test(arguments: TestDatabase.all)
    func malformedRequestsAreRefused(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let hotline = try await h.officerToken(roles: ["c19hotline"])
            let badIssues = [
                try await h.internal.postJSON(Self.issue, ["kind": "TELETAN"], headers: [("Authorization", "Bearer \(hotline)")]),
                try await h.internal.postJSON(Self.issue, [String: String](), headers: [("Authorization", "Bearer \(hotline)")]),
            ]
            Covers.status(400, of: "POST /version/v1/codes", among: badIssues)
            // The deployment's region only.
            let otherRegion = try await h.issueCode("COVIDSHIELD", token: hotline, region: "QC")
            Covers.status(400, of: "POST /version/v1/codes", otherRegion, error: "unknown_region")
            #expect(try await h.issueCode("COVIDSHIELD", token: hotline, region: "ON").status == 201)
            let badRedemptions = [
                try await h.internal.postJSON(Self.redeem, ["kind": "COVIDSHIELD"]),
                try await h.internal.postJSON(Self.redeem, ["code": "12345678"]),
                try await h.internal.postJSON(Self.redeem, ["kind": "covidshield", "code": "12345678"]),
                try await h.internal.postJSON(Self.redeem, ["kind": "COVIDSHIELD", "code": 12345678]),
            ]
            Covers.status(400, of: "POST /version/v1/codes/redeem", among: badRedemptions)
            #expect(try await h.rows("one_time_codes") == 1)
        }
    }

    /// Codes count against the teleTAN issuance limits, per officer and for everyone, together with teleTANs.
    @Test(arguments: TestDatabase.all)
    func issuanceCountsAgainstTheTeleTANLimits(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: ["TELETAN_RATE_LIMIT": "3", "TELETAN_OFFICER_RATE_LIMIT": "2"]) { h in
            let first = try await h.officerToken(roles: ["c19hotline"], expiresIn: 7200, subject: "officer-1")
            let second = try await h.officerToken(roles: ["c19hotline"], expiresIn: 7200, subject: "officer-2")
            #expect(try await h.createTeleTAN(token: first).status == 201)
            #expect(try await h.issueCode("COVIDSHIELD", token: first).status == 201)
            let officerLimited = try await h.issueCode("PROTEGO", token: first)
            Covers.status(429, of: "POST /version/v1/codes", officerLimited, error: "rate_limited")
            #expect(try await h.issueCode("PROTEGO", token: second).status == 201)
            try await h.issueCode("COVIDSHIELD", token: second).expectError(429, "rate_limited")
            #expect(try await h.createTeleTAN(token: second).status == 429)
            #expect(try await h.rows("one_time_codes") == 2)
            #expect(try await h.issuanceCount(scope: TeleTANRateLimit.globalScope) == 3)
            h.clock.advance(by: 3600)
            #expect(try await h.issueCode("COVIDSHIELD", token: first).status == 201)
        }
    }

    /// Wrong codes drain the phone's bucket of their kind; a refused guess is a 429, never a 404, and costs no lookup;
    /// a right code gives its token back; malformed codes cost nothing; another phone is not held up.
    @Test(arguments: TestDatabase.all)
    func failedRedemptionsAreThrottledPerKind(kind: TestDatabase) async throws {
        let limits = ["ONE_TIME_CODE_SOURCE_FAILURE_BURST": "3", "ONE_TIME_CODE_SOURCE_FAILURES_PER_HOUR": "60"]
        try await VerificationHarness.run(on: kind, environment: limits) { h in
            let phone = VerificationHarness.origin(phone: 1, network: 1)
            let valid = try await h.newCode("COVIDSHIELD")
            let pin = try await h.newCode("PROTEGO")
            #expect(try await h.redeemCode("COVIDSHIELD", try await h.newCode("COVIDSHIELD"), origin: phone).status == 200)
            for wrong in ["00000001", "00000002", "00000003"] {
                try #require(try await h.redeemCode("COVIDSHIELD", wrong, origin: phone).status == 404)
            }
            for malformed in ["", "1234", "abcdefgh"] {
                try #require(try await h.redeemCode("COVIDSHIELD", malformed, origin: phone).status == 404)
            }
            // The phone's bucket is empty: even its right code waits, and the answer is not "unknown".
            let throttled = try await h.redeemCode("COVIDSHIELD", valid, origin: phone)
            Covers.status(429, of: "POST /version/v1/codes/redeem", throttled, error: "rate_limited")
            // ProteGO has buckets of its own; another phone of the same network is not held up.
            #expect(try await h.redeemCode("PROTEGO", pin, origin: phone).status == 200)
            #expect(try await h.redeemCode("COVIDSHIELD", try await h.newCode("COVIDSHIELD"), origin: VerificationHarness.origin(phone: 2, network: 1)).status == 200)
            h.clock.advance(by: 60)
            #expect(try await h.redeemCode("COVIDSHIELD", valid, origin: phone).status == 200)
            // An origin that is not two keyed hashes is refused before any token or lookup.
            let bad = try await h.redeemCode("COVIDSHIELD", valid, origin: (source: "not-hex", network: phone.network))
            bad.expectError(400, "invalid_origin")
            // The refusal is in the hour's tally, published once the hour has ended.
            h.clock.advance(by: 3600)
            try #require(try await h.register(guid: VerificationHarness.hashedGUID(), fake: "1").status == 201)
            #expect(TeleTANTests.rateLimitedLastHour(h, "code_failures") == 1)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aConcurrentBurstOfGuessesGetsNoMoreLookupsThanTokens(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: ["ONE_TIME_CODE_SOURCE_FAILURE_BURST": "5"]) { h in
            // Fifty guesses of one phone at once: its five tokens pay for five lookups.
            let answers = try await h.race { try await $0.redeemCode("PROTEGO", OneTimeCodeKind.proteGO.generate(using: SystemRandomSource())) }
            #expect(answers.filter { $0.status == 404 }.count == 5)
            #expect(answers.filter { $0.status == 429 }.count == 45)
        }
    }

    /// The attack of issue #58: about 120 wrong CovidShield codes an hour (the one bucket of the kind) blocked every
    /// valid claim on a replica. Now 250 phones in ten networks guessing both kinds at full speed empty the shared
    /// buckets, but every network of theirs has a wrong guess against it, and a phone of another network is served
    /// from the reserve; within the bound of wrong lookups (docs/security.md).
    @Test(arguments: TestDatabase.all)
    func twoHundredFiftyPhonesInTenNetworksBlockNoClaimElsewhere(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let covidShield = try await h.newCode("COVIDSHIELD")
            let pin = try await h.newCode("PROTEGO")
            let random = SeededRandomSource(seed: 71)
            let guesses = (0..<1_000).map { n in
                (kind: n % 2 == 0 ? OneTimeCodeKind.covidShield : .proteGO, phone: VerificationHarness.origin(phone: n % 250, network: n % 10))
            }.map { ($0.kind.rawValue, $0.kind.generate(using: random), $0.phone) }
            let statuses = try await withManyConnections(64) { http in
                let attacker = h.using(http)
                return try await concurrently(over: guesses.map { [$0.0, $0.1, $0.2.source, $0.2.network] }) { guess in
                    try await attacker.redeemCode(guess[0], guess[1], origin: (guess[2], guess[3])).status
                }
            }
            // Per kind: the shared burst (30) and at most one guess per network from the reserve.
            let lookups = statuses.filter { $0 == 404 }.count
            #expect(lookups >= 60 && lookups <= 80)
            #expect(statuses.filter { $0 == 429 }.count == statuses.count - lookups)
            // A new phone of an attacker's network waits: the shared buckets still bound everyone.
            let neighbour = VerificationHarness.origin(phone: 999, network: 2)  // a network that guessed CovidShield codes
            #expect(try await h.redeemCode("COVIDSHIELD", covidShield, origin: neighbour).status == 429)
            let elsewhere = VerificationHarness.origin(phone: 1_000, network: 1_000)
            #expect(try await h.redeemCode("COVIDSHIELD", covidShield, origin: elsewhere).status == 200)
            #expect(try await h.redeemCode("PROTEGO", pin, origin: elsewhere).status == 200)
        }
    }

    /// A database that fails is a JSON 500 that spends nothing: no code, no count, no token of the bucket.
    @Test(arguments: TestDatabase.all)
    func databaseFailuresAnswer500AndSpendNothing(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: ["TELETAN_RATE_LIMIT": "1", "ONE_TIME_CODE_SOURCE_FAILURE_BURST": "1"]) { h in
            let officer = try await h.officerToken(roles: ["c19hotline"])
            try await FailureInjection.fail(.insert, on: "one_time_codes", in: h.database)
            Covers.status(500, of: "POST /version/v1/codes", try await h.issueCode("PROTEGO", token: officer), error: "internal_error")
            try await FailureInjection.remove(from: "one_time_codes", in: h.database)
            // The failed request took none of the window's one issuance.
            let pin = try #require(try await h.issueCode("PROTEGO", token: officer).json["code"] as? String)

            // The credential cannot be stored: the PIN stays unspent, and the bucket's one token is given back.
            try await FailureInjection.fail(.insert, on: "tans", in: h.database)
            Covers.status(500, of: "POST /version/v1/codes/redeem", try await h.redeemCode("PROTEGO", pin), error: "internal_error")
            try await FailureInjection.remove(from: "tans", in: h.database)
            try await FailureInjection.fail(.update, on: "one_time_codes", in: h.database)
            try await h.redeemCode("PROTEGO", pin).expectError(500, "internal_error")
            try await FailureInjection.remove(from: "one_time_codes", in: h.database)
            #expect(try await h.redeemCode("PROTEGO", pin).status == 200)
            #expect(try await h.rows("tans") == 1)
        }
    }

    /// Expired codes go with the hourly retention, used or not; live ones stay. An officer's codes stay, dead, for
    /// the 7 days their officer sees their status; a health-authority system's go at once.
    @Test(arguments: TestDatabase.all)
    func retentionPurgesDeadCodes(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let used = try await h.newCode("COVIDSHIELD")
            _ = try await h.newCode("COVIDSHIELD")
            #expect(try await h.redeemCode("COVIDSHIELD", used).status == 200)
            let issuer = try await h.addIssuer("ontario-ha", kind: "covidshield")
            try #require(try await h.newKeyClaim(token: issuer).status == 200)
            h.clock.advance(by: 601)
            let pin = try await h.newCode("PROTEGO")
            let retention = VerificationRetention(database: h.database, lifetimes: Lifetimes(), rateLimitWindow: .seconds(3600))
            #expect(try await retention.run(now: h.clock.now())["one_time_codes"] == 1, "the issuer's")
            #expect(try await h.redeemCode("PROTEGO", pin).status == 200)
            let officer = try await h.officerToken(roles: ["c19hotline"], expiresIn: 30 * 86400)
            // The PIN first (the newest), then the two CovidShield codes of one second, in either order.
            let statuses = try IssuedCodeTests.codes(try await IssuedCodeTests.list(h, token: officer)).compactMap { $0["status"] as? String }
            #expect(statuses.first == "used" && statuses.dropFirst().sorted() == ["expired", "used"])
            // Exactly 7 days after the PIN's issue it stays, with the two CovidShield codes gone; a second later it goes.
            h.clock.advance(by: 7 * 86400)
            #expect(try await retention.run(now: h.clock.now())["one_time_codes"] == 2)
            h.clock.advance(by: 1)
            #expect(try await retention.run(now: h.clock.now())["one_time_codes"] == 1)
            #expect(try await h.rows("one_time_codes") == 0)
        }
    }
}

/// The store beneath: collisions are drawn again, rotated keys still find their codes.
@Suite struct OneTimeCodeStoreTests {
    static func keys(_ text: String) throws -> [SecretHashKey] {
        try SecretHashKey.parseList(text, variable: "TELETAN_HASH_KEYS")
    }
    static let old = "old:" + Data(repeating: 0x11, count: 32).base64EncodedString()
    static let new = "new:" + Data(repeating: 0x22, count: 32).base64EncodedString()
    static let now = Date(timeIntervalSince1970: 1_750_000_000)
    static let owner = CodeOwner(officer: .init(issuer: "https://portal.test", subject: "officer-1"), authority: "default")

    static func withStore(on kind: TestDatabase, _ body: (Database) async throws -> Void) async throws {
        try await kind.withFreshDatabase { database in
            try await VerificationMigrations.migrator.migrate(database, logger: TestLogger.quiet)
            try await body(database)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aCollidingCodeIsDrawnAgain(kind: TestDatabase) async throws {
        try await Self.withStore(on: kind) { database in
            let store = OneTimeCodeStore(database: database, hasher: TypedSecretHasher(keys: try Self.keys(Self.old)))
            let validUntil = Self.now.addingTimeInterval(600)
            guard case .issued(let first, _) = try await store.issue(
                kind: .covidShield, region: "ON", count: 1, now: Self.now, validUntil: validUntil, owner: Self.owner, random: SeededRandomSource(seed: 5)
            ) else { Issue.record("not issued"); return }
            // The same generator again draws the same code first, which is taken: the next draw is stored.
            guard case .issued(let second, _) = try await store.issue(
                kind: .covidShield, region: "ON", count: 1, now: Self.now, validUntil: validUntil, owner: Self.owner, random: SeededRandomSource(seed: 5)
            ) else { Issue.record("not issued"); return }
            #expect(first != second)
            #expect(OneTimeCodeKind.covidShield.generate(using: SeededRandomSource(seed: 5)) == first[0])
            #expect(try await store.redeem(kind: .covidShield, code: first[0], now: Self.now) != nil)
            #expect(try await store.redeem(kind: .covidShield, code: second[0], now: Self.now) != nil)
        }
    }

    /// After a key rotation (the new key first, the old one kept), codes stored under the old key are still found,
    /// and a new code whose old-key hash is a stored row is drawn again rather than stored twice.
    @Test(arguments: TestDatabase.all)
    func rotatedKeysStillFindTheirCodes(kind: TestDatabase) async throws {
        try await Self.withStore(on: kind) { database in
            let before = OneTimeCodeStore(database: database, hasher: TypedSecretHasher(keys: try Self.keys(Self.old)))
            let after = OneTimeCodeStore(database: database, hasher: TypedSecretHasher(keys: try Self.keys("\(Self.new),\(Self.old)")))
            let validUntil = Self.now.addingTimeInterval(1800)
            guard case .issued(let old, _) = try await before.issue(
                kind: .proteGO, region: "PL", count: 2, now: Self.now, validUntil: validUntil, owner: Self.owner, random: SeededRandomSource(seed: 8)
            ) else { Issue.record("not issued"); return }
            guard case .issued(let new, _) = try await after.issue(
                kind: .proteGO, region: "PL", count: 2, now: Self.now, validUntil: validUntil, owner: Self.owner, random: SeededRandomSource(seed: 8)
            ) else { Issue.record("not issued"); return }
            #expect(Set(old).isDisjoint(with: new))
            let keyIDs = try await database.withConnection { connection in
                try await connection.raw("SELECT hash_key_id FROM one_time_codes").all().map { try $0.decode(column: "hash_key_id", as: String.self) }
            }
            #expect(keyIDs.sorted() == ["new", "new", "old", "old"])
            for code in old + new {
                #expect(try await after.redeem(kind: .proteGO, code: code, now: Self.now) == RedeemedOneTimeCode(region: "PL", issuedAt: Self.now.epochSeconds))
            }
            // A store without the old key no longer finds what was stored under it.
            guard case .issued(let late, _) = try await before.issue(
                kind: .proteGO, region: "PL", count: 1, now: Self.now, validUntil: validUntil, owner: Self.owner, random: SeededRandomSource(seed: 77)
            ) else { Issue.record("not issued"); return }
            let newOnly = OneTimeCodeStore(database: database, hasher: TypedSecretHasher(keys: try Self.keys(Self.new)))
            #expect(try await newOnly.redeem(kind: .proteGO, code: late[0], now: Self.now) == nil)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aBatchIsStoredWholeOrNotAtAll(kind: TestDatabase) async throws {
        try await Self.withStore(on: kind) { database in
            let store = OneTimeCodeStore(database: database, hasher: TypedSecretHasher(keys: try Self.keys(Self.old)))
            try await FailureInjection.fail(.insert, on: "one_time_codes", onceTableHolds: 500, in: database)
            await #expect(throws: (any Error).self) {
                try await store.issue(
                    kind: .proteGO, region: "PL", count: 1000, now: Self.now, validUntil: Self.now.addingTimeInterval(1800), owner: Self.owner, random: SeededRandomSource(seed: 3)
                )
            }
            try await FailureInjection.remove(from: "one_time_codes", in: database)
            let count = try await database.withConnection { connection in
                try await connection.raw("SELECT COUNT(*) AS n FROM one_time_codes").first()!.decode(column: "n", as: Int.self)
            }
            #expect(count == 0)
            guard case .issued(let codes, _) = try await store.issue(
                kind: .proteGO, region: "PL", count: 1000, now: Self.now, validUntil: Self.now.addingTimeInterval(1800), owner: Self.owner, random: SeededRandomSource(seed: 3)
            ) else { Issue.record("not issued"); return }
            #expect(Set(codes).count == 1000)
        }
    }
}
