import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification

/// TAN redemption, which concurrent verifications share in batched UPDATEs: each TAN still goes to one verifier.
@Suite struct TanStoreTests {
    static let issuedAt = Date(timeIntervalSince1970: 1_750_000_000)
    static let validUntil = issuedAt.addingTimeInterval(3600)

    static func tanHash(_ n: Int) -> String { SecretHash.sha256Hex("tan-\(n)") }

    /// A store over a fresh database with TANs 0..<count issued; even ones from GUIDs, odd ones from EVENT teleTANs.
    static func withIssuedTANs(_ count: Int, on kind: TestDatabase, _ body: (TanStore, Database) async throws -> Void) async throws {
        try await kind.withFreshDatabase { database in
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
            let answers = try await TanStore.redeem(batch, in: database)
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
            let batchAnswers = try await TanStore.redeem(batch, in: database)
            let emptyBatchAnswers = try await TanStore.redeem([], in: database)
            #expect(batchAnswers.count == 2 && batchAnswers.allSatisfy { $0 == nil })
            #expect(emptyBatchAnswers.isEmpty)
        }
    }
}
