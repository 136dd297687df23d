import ExposureCore
import ExposureTestSupport
import Foundation
import Testing

@testable import Submission

@Suite struct DiagnosisKeyStoreTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func key(_ byte: UInt8, type: Int32 = 0, visited: [String] = ["FR", "IT"]) -> DiagnosisKey {
        DiagnosisKey(
            keyData: Data(repeating: byte, count: 16), rollingStartIntervalNumber: 2_833_200, rollingPeriod: 144,
            transmissionRiskLevel: 7, daysSinceOnsetOfSymptoms: -2, reportType: 1, originCountry: "DE",
            visitedCountries: visited, consentToFederation: true, submissionType: type
        )
    }

    func withStore(_ kind: TestDatabase, _ body: (DiagnosisKeyStore) async throws -> Void) async throws {
        try await kind.withFreshDatabase { database in
            try await SubmissionMigrations.migrator.migrate(database, logger: TestLogger.quiet)
            try await body(DiagnosisKeyStore(database: database))
        }
    }

    @Test(arguments: TestDatabase.all)
    func keysRoundTrip(kind: TestDatabase) async throws {
        try await withStore(kind) { store in
            let keys = [Self.key(2), Self.key(1, visited: [])]
            let outcome = try await store.store(keys, padding: [Self.key(9)], submittedAt: Self.now) {}
            #expect(outcome == StoreOutcome(inserted: 2, paddingInserted: 1))
            let stored = try await store.all()
            #expect(stored.map(\.key) == [Self.key(1, visited: []), Self.key(2), Self.key(9)])
            #expect(stored.allSatisfy { $0.submissionHour == 1_700_000_000 / 3600 })
        }
    }

    /// More keys than one SQLite statement carries, each field different from key to key, so that a column
    /// swapped or shifted between the keys (PostgreSQL writes them as one array per column) would show.
    @Test(arguments: TestDatabase.all)
    func manyKeysKeepEachOfTheirFields(kind: TestDatabase) async throws {
        try await withStore(kind) { store in
            let keys = (0..<(DiagnosisKeyStore.chunkSize * 2 + 50)).map { index in
                DiagnosisKey(
                    keyData: Data([UInt8(index / 256), UInt8(index % 256)] + Array(repeating: 0xA5, count: 14)),
                    rollingStartIntervalNumber: 2_833_200 + Int32(index), rollingPeriod: Int32(1 + index % 144),
                    transmissionRiskLevel: Int32(index % 9), daysSinceOnsetOfSymptoms: Int32(index % 29) - 14,
                    reportType: Int32(index % 4), originCountry: index.isMultiple(of: 2) ? "DE" : "NL",
                    visitedCountries: index.isMultiple(of: 3) ? [] : ["FR", "IT"].prefix(index % 2 + 1).map { $0 },
                    consentToFederation: index.isMultiple(of: 5), submissionType: Int32(index % 2)
                )
            }
            let outcome = try await store.store(keys, padding: [], submittedAt: Self.now) {}
            #expect(outcome == StoreOutcome(inserted: keys.count, paddingInserted: 0))
            let stored = try await store.all().map(\.key)
            #expect(stored == keys.sorted { $0.keyData.lexicographicallyPrecedes($1.keyData) })
        }
    }

    @Test(arguments: TestDatabase.all)
    func storedKeysAreSkippedNotErrors(kind: TestDatabase) async throws {
        try await withStore(kind) { store in
            _ = try await store.store([Self.key(1), Self.key(2)], padding: [], submittedAt: Self.now) {}
            let again = try await store.store([Self.key(2), Self.key(3), Self.key(3)], padding: [], submittedAt: Self.now) {}
            #expect(again.inserted == 1)
            // The same key data under another submission type is another row (primary key of the contract).
            let rapid = try await store.store([Self.key(1, type: 1)], padding: [], submittedAt: Self.now) {}
            #expect(rapid.inserted == 1)
            #expect(try await store.count() == 4)
        }
    }

    @Test(arguments: TestDatabase.all)
    func realAndPaddingKeysAreCountedApartWhenSomeAreStoredAlready(kind: TestDatabase) async throws {
        try await withStore(kind) { store in
            _ = try await store.store([Self.key(1), Self.key(2)], padding: [Self.key(9)], submittedAt: Self.now) {}
            let again = try await store.store([Self.key(2), Self.key(3)], padding: [Self.key(9), Self.key(8), Self.key(7)], submittedAt: Self.now) {}
            #expect(again == StoreOutcome(inserted: 1, paddingInserted: 2))
            // A submission whose keys are all stored already (a repeat) stores no padding either.
            let repeated = try await store.store([Self.key(3)], padding: [Self.key(6)], submittedAt: Self.now) {}
            #expect(repeated == StoreOutcome(inserted: 0, paddingInserted: 0))
            #expect(try await store.count() == 6)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aFailedAuthorizationRollsEverythingBack(kind: TestDatabase) async throws {
        struct Refused: Error {}
        try await withStore(kind) { store in
            await #expect(throws: Refused.self) {
                try await store.store([Self.key(1), Self.key(2)], padding: [Self.key(3)], submittedAt: Self.now) { throw Refused() }
            }
            let count = try await store.count()
            #expect(count == 0)
        }
    }

    @Test(arguments: TestDatabase.all)
    func retentionDeletesKeysSubmittedBeforeTheWindow(kind: TestDatabase) async throws {
        try await withStore(kind) { store in
            let day: TimeInterval = 86400
            _ = try await store.store([Self.key(1)], padding: [], submittedAt: Self.now) {}
            _ = try await store.store([Self.key(2)], padding: [], submittedAt: Self.now.addingTimeInterval(2 * day)) {}
            #expect(try await store.applyRetention(retentionDays: 14, now: Self.now.addingTimeInterval(14 * day)) == 0)
            #expect(try await store.applyRetention(retentionDays: 14, now: Self.now.addingTimeInterval(14 * day + 3600)) == 1)
            #expect(try await store.all().map(\.key.keyData) == [Data(repeating: 2, count: 16)])
        }
    }
}
