import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification
@testable import VerificationDomain

/// The two-phase redemption in the database, on both: one upload holds a TAN at a time, a confirmation spends it only
/// while the lease runs, a release of a run-out lease makes a later confirmation impossible, and concurrent uploads
/// of one TAN give it to exactly one.
@Suite struct TanStoreReservationTests {
    static let start = TanStoreTests.issuedAt.addingTimeInterval(60)
    static let lease: Duration = .seconds(180)

    static func key(_ name: String) -> String { SecretHash.sha256Hex(name).prefix(32).lowercased() }

    static func reserve(_ store: TanStore, _ n: Int, _ key: String, at now: Date) async throws -> TANReservationOutcome {
        try await store.reserve([.init(tanHash: TanStoreTests.tanHash(n), key: key)], now: now)[0]
    }

    /// TANs 0..<count as `TanStoreTests` issues them (even from GUIDs, odd from EVENT teleTANs), with a 3-minute lease.
    static func withTANs(
        _ count: Int, on kind: TestDatabase, poolSize: Int = 4, _ body: (TanStore, Database) async throws -> Void
    ) async throws {
        try await TanStoreTests.withIssuedTANs(count, on: kind, poolSize: poolSize) { _, database in
            try await body(TanStore(database: database, lease: lease), database)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aReservationHoldsTheTANUntilConfirmedAndTheConfirmationSpendsIt(kind: TestDatabase) async throws {
        let guid = RedeemedTAN(source: .guid, teleTANType: nil)
        try await Self.withTANs(2, on: kind) { store, _ in
            let answer1 = try await Self.reserve(store, 0, Self.key("a"), at: Self.start)
            #expect(answer1 == .reserved(guid))
            // Another upload is kept waiting for the rest of the lease; the same one renews it.
            let answer2 = try await Self.reserve(store, 0, Self.key("b"), at: Self.start.addingTimeInterval(60))
            #expect(answer2 == .busy(retryAfter: .seconds(120)))
            let answer3 = try await Self.reserve(store, 0, Self.key("a"), at: Self.start.addingTimeInterval(60))
            #expect(answer3 == .reserved(guid))
            // Held by a running reservation, the TAN cannot be spent the one-phase way either.
            let answer4 = try await store.redeem(tanHash: TanStoreTests.tanHash(0), now: Self.start.addingTimeInterval(61))
            #expect(answer4 == nil)
            let answer5 = try await store.confirm(keys: [Self.key("b"), Self.key("a")], now: Self.start.addingTimeInterval(90))
            #expect(answer5 == [false, true])
            // Spent: a repeat of the same upload is told so within the hour; anything else is refused.
            let answer6 = try await store.confirm(keys: [Self.key("a")], now: Self.start.addingTimeInterval(100))
            #expect(answer6 == [true])
            let answer7 = try await Self.reserve(store, 0, Self.key("a"), at: Self.start.addingTimeInterval(120))
            #expect(answer7 == .confirmed(guid))
            let answer8 = try await Self.reserve(store, 0, Self.key("b"), at: Self.start.addingTimeInterval(120))
            #expect(answer8 == .refused)
            let answer9 = try await Self.reserve(store, 0, Self.key("a"), at: Self.start.addingTimeInterval(4000))
            #expect(answer9 == .refused)
            let answer10 = try await store.redeem(tanHash: TanStoreTests.tanHash(0), now: Self.start.addingTimeInterval(121))
            #expect(answer10 == nil)
            // A TAN from an EVENT teleTAN says so, and unknown or expired TANs are refused.
            let answer11 = try await Self.reserve(store, 1, Self.key("c"), at: Self.start)
            #expect(answer11 == .reserved(RedeemedTAN(source: .teleTAN, teleTANType: .event)))
            let answer12 = try await Self.reserve(store, 7, Self.key("d"), at: Self.start)
            #expect(answer12 == .refused)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aLeaseThatRanOutFreesTheTANAndCannotBeConfirmedOnceTaken(kind: TestDatabase) async throws {
        try await Self.withTANs(1, on: kind) { store, _ in
            _ = try await Self.reserve(store, 0, Self.key("a"), at: Self.start)
            let later = Self.start.addingTimeInterval(181)
            // Run out: a confirmation fails, another upload takes the TAN and spends it.
            #expect(try await store.confirm(keys: [Self.key("a")], now: later) == [false])
            #expect(try await Self.reserve(store, 0, Self.key("b"), at: later) == .reserved(RedeemedTAN(source: .guid, teleTANType: nil)))
            #expect(try await store.confirm(keys: [Self.key("a")], now: later) == [false])
            #expect(try await store.confirm(keys: [Self.key("b")], now: later) == [true])
            #expect(try await store.release(keys: [Self.key("a"), Self.key("b")], expiredOnly: true, now: later) == [.released, .confirmed])
        }
    }

    /// The recovery job's question: a running lease is left alone; a run-out one is released, after which the
    /// upload's own confirmation (a request that stalled) can no longer spend the TAN.
    @Test(arguments: TestDatabase.all)
    func releasingRunOutLeasesDecidesAgainstALateConfirmation(kind: TestDatabase) async throws {
        try await Self.withTANs(3, on: kind) { store, _ in
            for n in 0..<3 { _ = try await Self.reserve(store, n, Self.key("upload-\(n)"), at: Self.start) }
            #expect(try await store.confirm(keys: [Self.key("upload-2")], now: Self.start.addingTimeInterval(10)) == [true])
            let keys = (0..<3).map { Self.key("upload-\($0)") }
            #expect(try await store.release(keys: keys, expiredOnly: true, now: Self.start.addingTimeInterval(100)) == [.leased, .leased, .confirmed])
            let later = Self.start.addingTimeInterval(200)
            #expect(try await store.release(keys: keys, expiredOnly: true, now: later) == [.released, .released, .confirmed])
            #expect(try await store.confirm(keys: [Self.key("upload-0")], now: later) == [false])
            // Released: free for the app's next upload, at once.
            #expect(try await Self.reserve(store, 0, Self.key("retry"), at: later) == .reserved(RedeemedTAN(source: .guid, teleTANType: nil)))
            // A release without `expiredOnly` (the upload could not store its keys) frees a running lease too.
            #expect(try await store.release(keys: [Self.key("retry")], expiredOnly: false, now: later) == [.released])
            #expect(try await store.confirm(keys: [Self.key("retry")], now: later) == [false])
            #expect(try await store.redeem(tanHash: TanStoreTests.tanHash(0), now: later) != nil)
        }
    }

    /// 50 uploads of one TAN, each with keys of its own, reserve at once, then confirm at once (the batches the service
    /// sends under load are among them): exactly one holds and spends it, and the database row names that one.
    @Test(arguments: TestDatabase.all)
    func fiftyUploadsRacingForOneTANLeaveExactlyOneHolder(kind: TestDatabase) async throws {
        // As many connections as a replica's pool holds, all open, so that the racers really meet in the database.
        try await Self.withTANs(1, on: kind, poolSize: 16) { store, database in
            try await database.openConnections(16)
            let keys = (0..<50).map { Self.key("racer-\($0)") }
            let barrier = StartBarrier(keys.count)
            let outcomes = try await withThrowingTaskGroup(of: (String, TANReservationOutcome).self) { group in
                for (index, key) in keys.enumerated() {
                    group.addTask {
                        await barrier.arrive()
                        // Every fifth asks as part of a batch with a stranger's TAN, as batched requests do.
                        if index.isMultiple(of: 5) {
                            let answers = try await store.reserve(
                                [.init(tanHash: TanStoreTests.tanHash(9), key: Self.key("stranger-\(index)")), .init(tanHash: TanStoreTests.tanHash(0), key: key)],
                                now: Self.start
                            )
                            return (key, answers[1])
                        }
                        return (key, try await Self.reserve(store, 0, key, at: Self.start))
                    }
                }
                return try await group.reduce(into: [(String, TANReservationOutcome)]()) { $0.append($1) }
            }
            let holders = outcomes.filter { if case .reserved = $0.1 { true } else { false } }.map(\.0)
            #expect(holders.count == 1)
            #expect(outcomes.allSatisfy { if case .reserved = $0.1 { true } else { $0.1 == .busy(retryAfter: .seconds(180)) } })
            let confirmations = try await withThrowingTaskGroup(of: Bool.self) { group in
                for key in keys { group.addTask { try await store.confirm(keys: [key], now: Self.start.addingTimeInterval(1))[0] } }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(confirmations.count(where: { $0 }) == 1)
            let row = try await database.withConnection { connection in
                try await connection.raw("SELECT redemption_key, redeemed_at FROM tans WHERE tan_hash = \(bind: TanStoreTests.tanHash(0))").first()
            }
            #expect(try row?.decode(column: "redemption_key", as: String.self) == holders.first)
            #expect(try row?.decode(column: "redeemed_at", as: Int64?.self) != nil)
        }
    }

    /// One batch may ask for the same TAN twice: its first place gets it (the same key at both places: both).
    @Test(arguments: TestDatabase.all)
    func aTANAskedTwiceInOneBatchGoesToItsFirstPlace(kind: TestDatabase) async throws {
        try await Self.withTANs(1, on: kind) { store, _ in
            let hash = TanStoreTests.tanHash(0)
            let guid = RedeemedTAN(source: .guid, teleTANType: nil)
            let answers = try await store.reserve(
                [.init(tanHash: hash, key: Self.key("first")), .init(tanHash: hash, key: Self.key("second")), .init(tanHash: hash, key: Self.key("first"))],
                now: Self.start
            )
            #expect(answers == [.reserved(guid), .busy(retryAfter: .seconds(180)), .reserved(guid)])
        }
    }
}
