import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification
@testable import VerificationDomain

/// TAN redemption, which concurrent verifications share in batched UPDATEs: each TAN still goes to one verifier.
@Suite struct TanStoreTests {
    static let issuedAt = Date(timeIntervalSince1970: 1_750_000_000)
    static let validUntil = issuedAt.addingTimeInterval(3600)

    static func tanHash(_ n: Int) -> String { SecretHash.sha256Hex("tan-\(n)") }

    /// A store over a fresh database with TANs 0..<count issued; even ones from GUIDs, odd ones from EVENT teleTANs.
    static func withIssuedTANs(
        _ count: Int, on kind: TestDatabase, poolSize: Int = 4, _ body: (TanStore, Database) async throws -> Void
    ) async throws {
        try await kind.withFreshDatabase(poolSize: poolSize) { database in
            try await VerificationMigrations.migrator.migrate(database, logger: TestLogger.quiet)
            let store = TanStore(database: database)
            for n in 0..<count {
                let fromTeleTAN = !n.isMultiple(of: 2)
                let issued = try await store.issue(
                    tanHash: tanHash(n), tokenHash: SecretHash.sha256Hex("token-\(n)"),
                    source: fromTeleTAN ? .teleTAN : .guid, type: fromTeleTAN ? .event : nil,
                    validUntil: validUntil, now: issuedAt
                )
                try #require(issued)
            }
            try await body(store, database)
        }
    }

    @Test(arguments: TestDatabase.all)
    func concurrentVerificationsRedeemEachTANOnce(kind: TestDatabase) async throws {
        try await Self.withIssuedTANs(150, on: kind) { store, _ in
            let now = Self.issuedAt.addingTimeInterval(60)
            // 150 issued and 50 unknown TANs, each verified three times, all at once.
            let outcomes = try await withThrowingTaskGroup(of: (Int, RedeemedTAN?).self) { group in
                for n in Array(0..<200) + Array(0..<200) + Array(0..<200) {
                    group.addTask { (n, try await store.redeem(tanHash: Self.tanHash(n), now: now)) }
                }
                return try await group.reduce(into: [Int: [RedeemedTAN]]()) { outcomes, outcome in
                    if let redeemed = outcome.1 { outcomes[outcome.0, default: []].append(redeemed) }
                }
            }
            #expect(outcomes.count == 150)
            for (n, redeemed) in outcomes {
                #expect(n < 150)
                let expected = n.isMultiple(of: 2)
                    ? RedeemedTAN(source: .guid, teleTANType: nil)
                    : RedeemedTAN(source: .teleTAN, teleTANType: .event)
                #expect(redeemed == [expected], "TAN \(n)")
            }
            let again = try await store.redeem(tanHash: Self.tanHash(0), now: now)
            #expect(again == nil)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aTANAskedForTwiceInOneBatchGoesToTheFirstAsker(kind: TestDatabase) async throws {
        try await Self.withIssuedTANs(2, on: kind) { _, database in
            let now = Self.issuedAt
            let batch = [0, 1, 0, 7, 1].map { TanStore.Redemption(tanHash: Self.tanHash($0), now: now) }
            let answers = try await TanStore.redeem(batch, repeatWindow: .seconds(3600), in: database)
            #expect(answers.map { $0 != nil } == [true, true, false, false, false])
            #expect(answers[1] == RedeemedTAN(source: .teleTAN, teleTANType: .event))
        }
    }

    @Test(arguments: TestDatabase.all)
    func expiryIsJudgedAtTheBatchsLatestInstant(kind: TestDatabase) async throws {
        try await Self.withIssuedTANs(3, on: kind) { store, database in
            // Alone, a TAN is valid up to the second before valid_until.
            let justInTime = try await store.redeem(tanHash: Self.tanHash(0), now: Self.validUntil.addingTimeInterval(-1))
            let tooLate = try await store.redeem(tanHash: Self.tanHash(1), now: Self.validUntil)
            #expect(justInTime != nil)
            #expect(tooLate == nil)
            // In one batch with a request from valid_until, a request from a second earlier is refused too: the
            // TANs are consumed after both came in.
            let batch = [
                TanStore.Redemption(tanHash: Self.tanHash(2), now: Self.validUntil.addingTimeInterval(-1)),
                TanStore.Redemption(tanHash: Self.tanHash(1), now: Self.validUntil),
            ]
            let batchAnswers = try await TanStore.redeem(batch, repeatWindow: .seconds(3600), in: database)
            let emptyBatchAnswers = try await TanStore.redeem([], repeatWindow: .seconds(3600), in: database)
            #expect(batchAnswers.count == 2 && batchAnswers.allSatisfy { $0 == nil })
            #expect(emptyBatchAnswers.isEmpty)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aRepeatWithTheSameKeyIsAnsweredAsTheFirstForAnHour(kind: TestDatabase) async throws {
        try await Self.withIssuedTANs(3, on: kind) { store, _ in
            let first = Self.issuedAt.addingTimeInterval(60)
            let (x, y) = (String(repeating: "a", count: 32), String(repeating: "b", count: 32))
            // (TAN, key, seconds after the first use) in order, and whether each is valid.
            let asked: [(Int, String?, TimeInterval, Bool)] = [
                (1, x, 0, true),
                // The same verification again, even after the TAN's expiry: answered as the first.
                (1, x, 3599, true),
                // Another verification: refused, with another key or with none; and the repeat's hour ends.
                (1, y, 0, false), (1, nil, 0, false), (1, x, 3600, false),
                // A verification without a key cannot be repeated, and a key cannot claim it afterwards.
                (2, nil, 0, true), (2, nil, 0, false), (2, x, 0, false),
                // An unknown TAN stays unknown under any key.
                (9, x, 0, false),
            ]
            for (n, key, after, valid) in asked {
                let redeemed = try await store.redeem(tanHash: Self.tanHash(n), key: key, now: first.addingTimeInterval(after))
                let expected = n.isMultiple(of: 2) ? RedeemedTAN(source: .guid, teleTANType: nil) : RedeemedTAN(source: .teleTAN, teleTANType: .event)
                #expect(redeemed == (valid ? expected : nil), "TAN \(n), key \(key ?? "none"), +\(after) s")
            }
        }
    }

    @Test(arguments: TestDatabase.all)
    func withinOneBatchEveryPlaceWithTheWinningKeyIsValid(kind: TestDatabase) async throws {
        try await Self.withIssuedTANs(4, on: kind) { _, database in
            let now = Self.issuedAt
            let (x, y) = (String(repeating: "a", count: 32), String(repeating: "b", count: 32))
            let asked: [(Int, String?)] = [(0, x), (0, x), (1, nil), (1, nil), (2, x), (2, x)]
            let batch = asked.map { TanStore.Redemption(tanHash: Self.tanHash($0.0), key: $0.1, now: now) }
            let answers = try await TanStore.redeem(batch, repeatWindow: .seconds(3600), in: database)
            #expect(answers.map { $0 != nil } == [true, true, true, false, true, true])
            // TAN 3 asked with two keys: the first asker's wins, at every place it holds; a later repeat of it is
            // valid, and in a batch that asks with the other key first, the repeat still wins.
            let contested = [(3, y), (3, x), (3, y)].map { TanStore.Redemption(tanHash: Self.tanHash($0.0), key: $0.1, now: now) }
            let verdicts = try await TanStore.redeem(contested, repeatWindow: .seconds(3600), in: database).map { $0 != nil }
            #expect(verdicts == [true, false, true])
            let again = [(3, x), (3, y)].map { TanStore.Redemption(tanHash: Self.tanHash($0.0), key: $0.1, now: now) }
            let repeated = try await TanStore.redeem(again, repeatWindow: .seconds(3600), in: database)
            #expect(repeated.map { $0?.source } == [nil, .teleTAN])
        }
    }
}
