import ExposureCore
import ExposureProtocol
import ExposureTestSupport
import Foundation
@testable import SubmissionDomain
import Testing
@testable import Submission
@testable import SubmissionCore

/// The record of placements in both databases, through whole distribution runs: a key's hour is decided once,
/// however later runs see the stored keys.
@Suite struct DistributionStoreTests {
    /// A key valid yesterday, submitted at `date` (straight into the store: no TAN, no padding).
    func insert(_ h: SubmissionHarness, _ bytes: [UInt8], submittedAt date: Date, type: Int32 = 0) async throws {
        let interval = Int32(date.epochSeconds / 600 / 144 * 144 - 144)
        let keys = bytes.map {
            DiagnosisKey(
                keyData: Data(repeating: $0, count: 16), rollingStartIntervalNumber: interval, rollingPeriod: 144,
                transmissionRiskLevel: 6, daysSinceOnsetOfSymptoms: 2, reportType: 1, originCountry: "DE",
                visitedCountries: [], consentToFederation: false, submissionType: type
            )
        }
        _ = try await h.store.storePublished(keys, padding: [], submittedAt: date)
    }

    /// Two minutes into `hour` (hours since the epoch).
    func at(_ hour: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(hour * 3600 + 120)) }

    func hourPath(_ run: DistributorTests.Run, _ hour: Int64) -> String {
        run.layout.hour(ExportTreeLayout.date(day: hour / 24), Int(hour % 24))
    }

    /// The first byte of each key in `hour`'s file.
    func hourFile(_ run: DistributorTests.Run, _ hour: Int64) throws -> [UInt8] {
        try ExportArchive.read(try run.writer.read(hourPath(run, hour))).export.keys.map { $0.keyData.first! }
    }

    /// Keys 4 and 5 stored in the harness's current hour and published by a run in the next one (threshold 2).
    func withTwoKeysPublished(_ kind: TestDatabase, _ body: (SubmissionHarness, DistributorTests.Run, _ hour: Int64) async throws -> Void) async throws {
        try await SubmissionHarness.run(kind) { h in
            try await DistributorTests().withDistributor(h, settings: ["SHIFTING_THRESHOLD": "2"]) { run in
                let hour = h.clock.now().epochSeconds / 3600
                try await insert(h, [4, 5], submittedAt: at(hour))
                _ = try await run.distributor.run(now: at(hour + 1))
                try await body(h, run, hour)
            }
        }
    }

    @Test(arguments: TestDatabase.all)
    func placementsAreRecordedAndKeptByLaterRuns(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { h in
            try await DistributorTests().withDistributor(h, settings: ["SHIFTING_THRESHOLD": "3"]) { run in
                let store = DistributionStore(database: h.database)
                let start = h.clock.now().epochSeconds / 3600

                // Two keys: below the threshold, the hour's file is empty and they wait.
                try await insert(h, [1, 2], submittedAt: at(start))
                let first = try await run.distributor.run(now: at(start + 1))
                #expect(first.keysPending == 2)
                #expect(try await store.state(now: at(start + 1)).plannedThroughHour == start)

                // A third key (and the same key data once more, as a rapid test's): the next hour publishes them all.
                try await insert(h, [3], submittedAt: at(start + 1))
                try await insert(h, [3], submittedAt: at(start + 1), type: 1)
                _ = try await run.distributor.run(now: at(start + 2))
                #expect(try hourFile(run, start).isEmpty)
                #expect(try hourFile(run, start + 1) == [1, 2, 3, 3])
                let state = try await store.state(now: at(start + 2))
                #expect(state.published[start + 1]?.count == 4)
                #expect(state.unpublished.isEmpty)
                #expect(state.plannedThroughHour == start + 1)

                // Three keys that commit late, with the first hour's time: its file exists, so they go into the next
                // open hour. Re-planning from all keys would put them into the first hour and lose them.
                try await insert(h, [7, 8, 9], submittedAt: at(start))
                _ = try await run.distributor.run(now: at(start + 3))
                #expect(try hourFile(run, start).isEmpty)
                #expect(try hourFile(run, start + 1) == [1, 2, 3, 3])
                #expect(try hourFile(run, start + 2) == [7, 8, 9])
                #expect(try await store.state(now: at(start + 3)).published[start + 2]?.count == 3)
            }
        }
    }

    /// Placements are recorded before the files: an hour file lost after the record (a run killed, a tree restored
    /// from an old copy) is written again with the same keys.
    @Test(arguments: TestDatabase.all)
    func aLostHourFileIsWrittenAgainFromTheRecord(kind: TestDatabase) async throws {
        try await withTwoKeysPublished(kind) { h, run, start in
            #expect(try hourFile(run, start) == [4, 5])
            try run.writer.remove(hourPath(run, start))
            // Another key for the lost hour: it was planned, so the key waits for an open hour instead.
            try await insert(h, [6], submittedAt: at(start))
            let next = try await run.distributor.run(now: at(start + 1))
            #expect(next.filesWritten == 1)
            #expect(try hourFile(run, start) == [4, 5])
            #expect(next.keysPending == 1)
        }
    }

    /// Placements go in transactions of whole hours; each moves the planned hour to its last one, the final one to
    /// the run's.
    @Test(arguments: TestDatabase.all)
    func placementsAreRecordedInTransactionsOfWholeHours(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { h in
            let start = h.clock.now().epochSeconds / 3600
            try await insert(h, [1, 2, 3, 4, 5], submittedAt: at(start))
            var store = DistributionStore(database: h.database)
            store.keysPerTransaction = 2
            let keys = try await store.state(now: at(start)).unpublished.sorted(by: ExportableKey.byKeyData)
            try #require(keys.count == 5)
            // Hours of 1, 2 and 2 keys: three transactions, the last with nothing but the run's planned hour.
            try await store.record([(start, [keys[0]]), (start + 1, [keys[1], keys[2]]), (start + 2, [keys[3], keys[4]])], plannedThroughHour: start + 5)
            let state = try await store.state(now: at(start + 6))
            #expect(state.published.mapValues { $0.map { $0.keyData.first! }.sorted() } == [start: [1], start + 1: [2, 3], start + 2: [4, 5]])
            #expect(state.unpublished.isEmpty)
            #expect(state.plannedThroughHour == start + 5)
        }
    }

    /// The same key data under two submission types is two rows, each recorded in its own hour, in one
    /// transaction whose hours list the keys out of the table's order.
    @Test(arguments: TestDatabase.all)
    func eachRowOfAKeyGetsItsOwnHour(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { h in
            let start = h.clock.now().epochSeconds / 3600
            try await insert(h, [1, 2], submittedAt: at(start))
            try await insert(h, [1, 3], submittedAt: at(start), type: 1)
            let store = DistributionStore(database: h.database)
            let keys = try await store.state(now: at(start)).unpublished
            func key(_ byte: UInt8, type: Int32) throws -> ExportableKey {
                try #require(keys.first { $0.keyData.first == byte && $0.submissionType == type })
            }
            try await store.record(
                [(start, [try key(3, type: 1), try key(1, type: 0)]), (start + 1, [try key(2, type: 0), try key(1, type: 1)])],
                plannedThroughHour: start + 1
            )
            let state = try await store.state(now: at(start + 2))
            let placed = state.published.mapValues { $0.map { "\($0.keyData.first!)/\($0.submissionType)" }.sorted() }
            #expect(placed == [start: ["1/0", "3/1"], start + 1: ["1/1", "2/0"]])
            #expect(state.unpublished.isEmpty)
        }
    }

    /// A key deleted after the read is not recorded, and its row's number, given to a key stored since (SQLite
    /// numbers a new row after the last one left), does not carry the deleted key's hour over to the new key.
    @Test(arguments: TestDatabase.all)
    func aKeyStoredAfterTheReadIsLeftWaiting(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { h in
            let start = h.clock.now().epochSeconds / 3600
            try await insert(h, [1, 2, 3], submittedAt: at(start))
            let store = DistributionStore(database: h.database)
            let keys = try await store.state(now: at(start)).unpublished
            try #require(keys.count == 3)
            let deleted = try #require(keys.first { $0.keyData.first == 3 })
            try await h.database.withConnection { connection in
                try await connection.raw("DELETE FROM diagnosis_keys WHERE key_data = \(bind: Data(deleted.keyData))").run()
            }
            try await insert(h, [9], submittedAt: at(start))
            if kind == .sqlite {
                let stored = try await store.state(now: at(start)).unpublished
                #expect(stored.first { $0.keyData.first == 9 }?.storeLocator == deleted.storeLocator, "the new key has the deleted key's row")
            }
            try await store.record([(start, keys)], plannedThroughHour: start)
            let state = try await store.state(now: at(start + 1))
            #expect(state.published.mapValues { $0.map { $0.keyData.first! }.sorted() } == [start: [1, 2]])
            #expect(state.unpublished.map { $0.keyData.first! } == [9])
        }
    }

    /// On SQLite a placement names its key's row: a key that `state` did not read has none, and the transaction
    /// that would record it records nothing.
    @Test func aKeyNotReadFromTheStoreIsRefusedOnSQLite() async throws {
        try await SubmissionHarness.run(.sqlite) { h in
            let start = h.clock.now().epochSeconds / 3600
            try await insert(h, [1], submittedAt: at(start))
            let store = DistributionStore(database: h.database)
            let read = try #require(try await store.state(now: at(start)).unpublished.first)
            var made = read
            made.storeLocator = 0
            #expect(made == read, "the row is not part of the key's value")
            await #expect(throws: KeyNotReadFromStore.self) {
                try await store.record([(start, [read, made])], plannedThroughHour: start)
            }
            let state = try await store.state(now: at(start + 1))
            #expect(state.published.isEmpty)
            #expect(state.unpublished.count == 1)
            #expect(state.plannedThroughHour == nil)
        }
    }

    /// SQLite's placements travel as JSON: every byte of the key in order, in hex, beside its row, type and hour.
    @Test func placementRowsSpellEachKeyInOrder() {
        let key = ExportableKey(
            keyData: Array(0...15) as [UInt8], rollingStartIntervalNumber: 1, rollingPeriod: 144, transmissionRiskLevel: 6,
            submissionType: 1, submissionHour: 2, storeLocator: 7
        )
        var other = key
        other.storeLocator = 1_234_567_890_123
        other.high = .max
        #expect(PlacementRows([(key, 5), (other, 472_222)]).json == """
            [[7,"000102030405060708090a0b0c0d0e0f",1,5],[1234567890123,"ffffffffffffffff08090a0b0c0d0e0f",1,472222]]
            """)
        #expect(PlacementRows([]).json == "[]")
    }

    /// A key keeps its row number and fields in 40 bytes: a first run holds a million keys several times over.
    @Test func aKeyTakesFortyBytes() {
        #expect(MemoryLayout<ExportableKey>.stride == 40)
        var key = ExportableKey(
            keyData: Array(repeating: 1, count: 16), rollingStartIntervalNumber: 1, rollingPeriod: 144, transmissionRiskLevel: 8,
            submissionType: 1, submissionHour: 2, storeLocator: 3
        )
        #expect((key.rollingPeriod, key.transmissionRiskLevel, key.submissionType) == (144, 8, 1))
        key.rollingPeriod = 255
        #expect(key.rollingPeriod == 255)
        #expect(!ExportableKey.fits(rollingPeriod: 256, transmissionRiskLevel: 1, submissionType: 0))
        #expect(!ExportableKey.fits(rollingPeriod: 144, transmissionRiskLevel: -1, submissionType: 0))
    }

    /// A stored row no file could carry (written by hand: submissions refuse such keys) is left out of the read,
    /// not a crash of the run, and the keys beside it are read.
    @Test(arguments: TestDatabase.all)
    func aRowOutOfRangeIsLeftOut(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { h in
            let start = h.clock.now().epochSeconds / 3600
            try await insert(h, [1, 2, 3], submittedAt: at(start))
            try await h.database.withConnection { connection in
                try await connection.raw("""
                    UPDATE diagnosis_keys SET rolling_period = 1000 WHERE key_data = \(bind: Data(repeating: 2, count: 16))
                    """).run()
                try await connection.raw("""
                    UPDATE diagnosis_keys SET submission_type = -1 WHERE key_data = \(bind: Data(repeating: 3, count: 16))
                    """).run()
            }
            let state = try await DistributionStore(database: h.database).state(now: at(start))
            #expect(state.unpublished.map { $0.keyData.first! } == [1])
        }
    }

    /// A run reads every key still waiting, and of the placed ones only those of the hours it asks for.
    @Test(arguments: TestDatabase.all)
    func onlyTheHoursAskedForAreReadOfThePlacedKeys(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { h in
            let start = h.clock.now().epochSeconds / 3600
            try await insert(h, [1, 2, 3, 4, 5, 6], submittedAt: at(start))
            let store = DistributionStore(database: h.database)
            let keys = try await store.state(now: at(start)).unpublished.sorted(by: ExportableKey.byKeyData)
            try #require(keys.count == 6)
            // Keys 1 to 5 placed in five hours, key 6 waiting.
            try await store.record((0..<5).map { (start + Int64($0), [keys[$0]]) }, plannedThroughHour: start + 4)
            func read(_ hours: [Range<Int64>]?) async throws -> (placed: [UInt8], waiting: [UInt8]) {
                let state = try await store.state(now: at(start + 6), placedHours: hours)
                return (state.published.values.flatMap { $0.map { $0.keyData.first! } }.sorted(), state.unpublished.map { $0.keyData.first! })
            }
            #expect(try await read(nil) == ([1, 2, 3, 4, 5], [6]))
            #expect(try await read([]) == ([], [6]))
            #expect(try await read([start + 1..<start + 2]) == ([2], [6]))
            #expect(try await read([start..<start + 2, start + 3..<start + 5]) == ([1, 2, 4, 5], [6]))
            #expect(try await read([start + 2..<start + 2, start + 4..<start + 9]) == ([5], [6]))
        }
    }

    /// The first run after the upgrade that added the record finds keys without an hour and no planned hour, beside
    /// the files an earlier version published: it plans the window as that version did, keeps those files, and
    /// records what it planned.
    @Test(arguments: TestDatabase.all)
    func theFirstRunAfterTheUpgradeKeepsTheFilesItFinds(kind: TestDatabase) async throws {
        try await withTwoKeysPublished(kind) { h, run, start in
            let published = try run.writer.read(hourPath(run, start))
            // What schema version 1 left behind: no record at all.
            try await h.database.withConnection { connection in
                try await connection.raw("UPDATE diagnosis_keys SET published_hour = NULL").run()
                try await connection.raw("DELETE FROM distribution_progress").run()
            }
            let next = try await run.distributor.run(now: at(start + 1))
            #expect(next.filesWritten == 0)
            #expect(try run.writer.read(hourPath(run, start)) == published)
            let state = try await DistributionStore(database: h.database).state(now: at(start + 1))
            #expect(state.published[start]?.count == 2)
            #expect(state.plannedThroughHour == start)
        }
    }
}
