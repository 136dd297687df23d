import ExposureCore
import ExposureStatistics
import ExposureNaCl
import ExposureProtocol
import ExposureTestSupport
import Foundation
import Testing

@testable import Submission
@testable import SubmissionCore
@testable import SubmissionCovidShield
@testable import SubmissionDomain

/// `POST /upload` over real HTTP on both databases (acceptance 5–10), the checks in the sheet's order.
@Suite struct CovidShieldUploadTests {
    /// RSN of 2020-05-19 00:00 UTC, the sheet's key.
    static let yesterday: UInt32 = 2_649_744

    /// Stores the sheet's server pair (secret SHA-256("server")) as if claimed with a code issued at `issuedAt`.
    static func storeSheetPair(_ harness: SubmissionHarness, issuedAt: Int64 = CovidShieldWire.uploadDay) async throws {
        let server = CovidShieldWire.serverPair
        let sealed = try SecretSealer(key: CovidShieldWire.encryptionKey).seal(server.secretKey, belongingTo: server.publicKey)
        let pair = CovidShieldKeyPairStore.NewPair(
            publicKey: server.publicKey, sealedSecretKey: sealed, region: "ON", validUntil: CovidShieldKeyPairPolicy.validUntil(issuedAt: issuedAt))
        #expect(try await CovidShieldKeyPairStore(database: harness.database).bind(appPublicKey: CovidShieldWire.appPair.publicKey, pair: pair, now: harness.clock.now()))
    }

    @Test(arguments: TestDatabase.all)
    func theSheetsSealedUploadIsAcceptedAndJoinsTheOneKeyStore(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind) { harness in
            try await Self.storeSheetPair(harness)
            let response = try await harness.upload(CovidShieldWire.bytes("""
                0a20af1855c95e561b3464c6ce46a1d7914de6183cfb1629cecf9ce1f8a82533276b
                1220ecbdc1e65e50aa5d18eed343987b3049e0b29f3d66994938a94aeba61f3f8a14
                1a18000102030405060708090a0b0c0d0e0f1011121314151617
                22367f1b031703128b549002f5b6884922fc55a7195613115e56deb20d7735b199f2e254c5c634d60715fde7a629cc878e3fc1447dda21dd
                """))
            Covers.status(200, of: "POST /upload", response)
            #expect(response.body == [0x08, 0x00])
            // Publishable in the store the distribution job reads: the GAEN exports carry it too.
            let stored = try await harness.store.all()
            #expect(stored.count == 1)
            #expect(stored.first?.key == DiagnosisKey(
                keyData: Data(0..<16), rollingStartIntervalNumber: Int32(Self.yesterday), rollingPeriod: 144, transmissionRiskLevel: 3,
                daysSinceOnsetOfSymptoms: 0, reportType: 1, originCountry: "ON", visitedCountries: [], consentToFederation: false, submissionType: 0))
            #expect(stored.first?.submissionHour == harness.currentHour)
            // The same upload again (the same key): accepted, not stored twice, not charged.
            let remaining = try await harness.database.withConnection { try await $0.raw("SELECT keys_remaining FROM covidshield_key_pairs").first()!.decode(column: "keys_remaining", as: Int.self) }
            #expect(remaining == 27)
        }
    }

    @Test(arguments: TestDatabase.all)
    func malformedRequestsAreRefusedInTheSheetsOrder(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind) { harness in
            let pair = try await harness.claimPair()
            let payload = CovidShieldWire.upload([CovidShieldWire.key(1, rollingStart: Self.yesterday)], timestamp: harness.nowSeconds)
            let big = try await harness.upload([UInt8](repeating: 0x0A, count: 2000))
            Covers.status(400, of: "POST /upload", big)
            #expect(big.body == [0x08, 0x01])
            #expect(try await harness.upload([0xFF, 0xFF, 0xFF]).body == [0x08, 0x01])
            for length in [4, 50] {
                let wrong = try await harness.upload(CovidShieldWire.sealed(payload, serverKey: pair.server, app: pair.app, sentServerKey: [UInt8](repeating: 9, count: length)))
                #expect(wrong.status == 400 && wrong.body == [0x08, 0x06])
            }
            // A bad nonce with an unknown server key: the key pair is looked up first.
            let unknown = try await harness.upload(CovidShieldWire.sealed(payload, serverKey: pair.server, app: pair.app, nonce: [UInt8](repeating: 0, count: 23), sentServerKey: [UInt8](repeating: 9, count: 32)))
            Covers.status(401, of: "POST /upload", unknown)
            #expect(unknown.body == [0x08, 0x02])
            for length in [23, 32] {
                let nonce = try await harness.upload(CovidShieldWire.sealed(payload, serverKey: pair.server, app: pair.app, nonce: [UInt8](repeating: 1, count: length)))
                #expect(nonce.status == 400 && nonce.body == [0x08, 0x06])
            }
            let random = try await harness.upload(CovidShieldWire.sealed(payload, serverKey: pair.server, app: pair.app, sealedPayload: SystemRandomSource().bytes(count: 60)))
            #expect(random.status == 400 && random.body == [0x08, 0x03])
            let notAnUpload = try await harness.upload(CovidShieldWire.sealed([0xFF, 0xFF, 0xFF, 0xFF], serverKey: pair.server, app: pair.app))
            #expect(notAnUpload.status == 400 && notAnUpload.body == [0x08, 0x04])
            #expect(try await harness.storedCount() == 0)
            // A pair claimed for a code issued 16 days ago is dead.
            harness.clock.advance(by: 16 * 86_400)
            let dead = try await harness.upload([CovidShieldWire.key(1, rollingStart: Self.yesterday)], to: pair)
            #expect(dead.status == 401 && dead.body == [0x08, 0x02])
        }
    }

    @Test(arguments: TestDatabase.all)
    func keyCountAndTimestampAreChecked(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind) { harness in
            let pair = try await harness.claimPair()
            let fifteen = (1...15).map { CovidShieldWire.key(UInt8($0), rollingStart: Self.yesterday) }
            let tooMany = try await harness.upload(fifteen, to: pair)
            #expect(tooMany.status == 400 && tooMany.body == [0x08, 0x07])
            let old = try await harness.upload(Array(fifteen.prefix(1)), to: pair, timestamp: harness.nowSeconds - 3600)
            #expect(old.status == 400 && old.body == [0x08, 0x08])
            #expect(try await harness.storedCount() == 0)
            #expect(try await harness.upload(Array(fifteen.prefix(14)), to: pair).body == [0x08, 0x00])
            let fresh = try await harness.claimPair()
            #expect(try await harness.upload([CovidShieldWire.key(0x31, rollingStart: Self.yesterday)], to: fresh, timestamp: harness.nowSeconds - 59 * 60).status == 200)
            // The first apps wrote milliseconds.
            #expect(try await harness.upload([CovidShieldWire.key(0x32, rollingStart: Self.yesterday)], to: fresh, timestamp: harness.nowSeconds * 1000 - 60_000).status == 200)
            #expect(try await harness.storedCount() == 16)
        }
    }

    @Test(arguments: TestDatabase.all)
    func oneBadKeyRejectsAllWithItsError(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind) { harness in
            let pair = try await harness.claimPair()
            let good = CovidShieldWire.key(1, rollingStart: Self.yesterday)
            let cases: [(Covidshield_Key, UInt8)] = [
                (CovidShieldWire.key(2, rollingStart: Self.yesterday, period: 0), 10),
                (CovidShieldWire.key(2, rollingStart: Self.yesterday, length: 15), 11),
                (CovidShieldWire.key(2, rollingStart: Self.yesterday, length: 17), 11),
                (CovidShieldWire.key(2, rollingStart: 0), 12),
                (CovidShieldWire.key(2, rollingStart: Self.yesterday, risk: -1), 13),
                (CovidShieldWire.key(2, rollingStart: Self.yesterday, risk: 9), 13),
            ]
            for (bad, code) in cases {
                let response = try await harness.upload([good, bad], to: pair)
                #expect(response.status == 400 && response.body == [0x08, code])
            }
            #expect(try await harness.storedCount() == 0)
            // No rolling period: a full day.
            #expect(try await harness.upload([CovidShieldWire.key(3, rollingStart: Self.yesterday, period: nil)], to: pair).status == 200)
            #expect(try await harness.store.all().map(\.key.rollingPeriod) == [144])
        }
    }

    @Test(arguments: TestDatabase.all)
    func aPairBringsInTwentyEightKeysAndRepeatsAreNotCharged(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind, environment: ["STATISTICS_FLUSH_INTERVAL": "1s"]) { harness in
            let pair = try await harness.claimPair()
            var keys = (1...14).map { CovidShieldWire.key(UInt8($0), rollingStart: Self.yesterday) }
            #expect(try await harness.upload(keys, to: pair).body == [0x08, 0x00])
            for day in 1...14 {
                // The app's daily upload: the 13 newest it sent before and one new key.
                keys = Array(keys.dropFirst()) + [CovidShieldWire.key(UInt8(14 + day), rollingStart: Self.yesterday)]
                let response = try await harness.upload(keys, to: pair)
                #expect(response.status == 200 && response.body == [0x08, 0x00], "upload \(day + 1)")
            }
            #expect(try await harness.storedCount() == 28)
            let sixteenth = Array(keys.dropFirst()) + [CovidShieldWire.key(0xEE, rollingStart: Self.yesterday)]
            let refused = try await harness.upload(sixteenth, to: pair)
            #expect(refused.status == 400 && refused.body == [0x08, 0x02])
            #expect(try await harness.storedCount() == 28)
            // Keys it brought in already cost nothing.
            #expect(try await harness.upload(keys, to: pair).status == 200)
            // The daily statistics: every key once, and the pair's uploads as one (the funnel's last step), not fifteen.
            let today = StatisticsDay(of: harness.clock.now())
            let statistics = DailyStatisticsStore(database: harness.database, service: "submission")
            // A flush can come between two uploads: wait for the whole day, which a count too high never reaches.
            let expected = ["keys_submitted/=28", "uploads/covidshield=1"]
            var counted: [String] = []
            try await pollUntil(interval: .milliseconds(200)) {
                counted = try await statistics.counts(from: today, through: today).map { "\($0.figure)/\($0.breakdown)=\($0.count)" }
                return counted == expected
            }
            #expect(counted == expected)
        }
    }

    @Test(arguments: TestDatabase.all)
    func concurrentUploadsCannotOverdrawABudget(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind) { harness in
            let pair = try await harness.claimPair()
            #expect(try await harness.upload((1...14).map { CovidShieldWire.key(UInt8($0), rollingStart: Self.yesterday) }, to: pair).status == 200)
            // 4 uploads of 7 new keys each at once: the 14 left take two of them.
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for batch in 0..<4 {
                    group.addTask {
                        try await harness.upload((0..<7).map { CovidShieldWire.key(UInt8(100 + batch * 7 + $0), rollingStart: Self.yesterday) }, to: pair).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.sorted() == [200, 200, 400, 400])
            #expect(try await harness.storedCount() == 28)
        }
    }
}

extension CovidShieldUploadTests {
    @Test(arguments: TestDatabase.all)
    func aPairThatCannotBeOpenedIsAServerError(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind) { harness in
            // Sealed under another key than the service's (an operator who changed COVIDSHIELD_KEY_ENCRYPTION_KEY).
            let server = CovidShieldWire.serverPair
            let sealed = try SecretSealer(key: [UInt8](repeating: 1, count: 32)).seal(server.secretKey, belongingTo: server.publicKey)
            let pair = CovidShieldKeyPairStore.NewPair(publicKey: server.publicKey, sealedSecretKey: sealed, region: "ON", validUntil: harness.nowSeconds + 86_400)
            _ = try await CovidShieldKeyPairStore(database: harness.database).bind(appPublicKey: CovidShieldWire.appPair.publicKey, pair: pair, now: harness.clock.now())
            let response = try await harness.upload([CovidShieldWire.key(1, rollingStart: Self.yesterday)], to: (CovidShieldWire.appPair, server.publicKey))
            Covers.status(500, of: "POST /upload", response)
            #expect(response.body == [0x08, 0x05])
            #expect(try await harness.storedCount() == 0)
        }
    }
}

extension CovidShieldUploadTests {
    /// Claims and uploads are counted by the enum they were answered with, and the keys stored, per finished hour only.
    @Test func claimsAndUploadsAreTalliedPerHour() {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_750_000_000))
        let published = SubmissionMetricsTests.Published()
        let metrics = CovidShieldMetrics(tally: HourlyTally(clock: clock, publish: published.append))
        metrics.claim(.none)
        metrics.claim(.invalidOneTimeCode)
        metrics.claim(.serverError, throttled: true)
        metrics.upload(.none, keysStored: 14)
        metrics.upload(.invalidKeypair, keysStored: 0)
        #expect(published.all.isEmpty)
        clock.advance(by: 3600)
        metrics.claim(.none)
        #expect(published.all == [[
            .init("covidshield_claims_last_hour", [("outcome", "none")]): 1,
            .init("covidshield_claims_last_hour", [("outcome", "invalidOneTimeCode")]): 1,
            .init("covidshield_claims_last_hour", [("outcome", "throttled")]): 1,
            .init("covidshield_uploads_last_hour", [("outcome", "none")]): 1,
            .init("covidshield_uploads_last_hour", [("outcome", "invalidKeypair")]): 1,
            .init("covidshield_keys_stored_last_hour"): 14,
        ]])
    }
}

extension CovidShieldUploadTests {
    /// Issue #58, item 4: the server's public key is no bearer credential. An upload sealed under an app key that never
    /// claimed the pair (a stranger's, or another claimant's own), or under a malformed one, is refused exactly as an
    /// unknown pair (401 INVALID_KEYPAIR), stores and charges nothing, and the claimant's own uploads still work.
    @Test(arguments: TestDatabase.all)
    func anUploadUnderAnotherAppKeyThanTheClaimsIsAnUnknownPair(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind) { harness in
            let pair = try await harness.claimPair()
            let unknown = try await harness.upload(CovidShieldWire.sealed(
                CovidShieldWire.upload([CovidShieldWire.key(1, rollingStart: Self.yesterday)], timestamp: harness.nowSeconds),
                serverKey: pair.server, app: pair.app, sentServerKey: SystemRandomSource().bytes(count: 32)))
            let stranger = try CryptoBox.keyPair(using: SystemRandomSource())
            let strangers = try await harness.upload([CovidShieldWire.key(1, rollingStart: Self.yesterday)], to: (stranger, pair.server))
            // Another app with a pair of its own cannot use this one either.
            let other = try await harness.claimPair()
            let othersKey = try await harness.upload([CovidShieldWire.key(2, rollingStart: Self.yesterday)], to: (other.app, pair.server))
            for response in [strangers, othersKey] {
                #expect(response.status == unknown.status && response.body == unknown.body)
                #expect(response.status == 401 && response.body == [0x08, 0x02])
            }
            #expect(try await harness.storedCount() == 0)
            // The claimant's own key works, its whole budget left.
            #expect(try await harness.upload([CovidShieldWire.key(3, rollingStart: Self.yesterday)], to: pair).body == [0x08, 0x00])
            #expect(try await harness.upload([CovidShieldWire.key(4, rollingStart: Self.yesterday)], to: other).body == [0x08, 0x00])
            let remaining = try await harness.database.withConnection {
                try await $0.raw("SELECT keys_remaining FROM covidshield_key_pairs").all().map { try $0.decode(column: "keys_remaining", as: Int.self) }
            }
            #expect(remaining == [27, 27])
        }
    }
}
