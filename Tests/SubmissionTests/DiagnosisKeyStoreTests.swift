import ExposureCore
import ExposureTestSupport
import Foundation
@testable import SubmissionDomain
import Testing

@testable import Submission
@testable import SubmissionCore

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
            let outcome = try await store.storePublished(keys, padding: [Self.key(9)], submittedAt: Self.now)
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
            let outcome = try await store.storePublished(keys, padding: [], submittedAt: Self.now)
            #expect(outcome == StoreOutcome(inserted: keys.count, paddingInserted: 0))
            let stored = try await store.all().map(\.key)
            #expect(stored == keys.sorted { $0.keyData.lexicographicallyPrecedes($1.keyData) })
        }
    }

    @Test(arguments: TestDatabase.all)
    func storedKeysAreSkippedNotErrors(kind: TestDatabase) async throws {
        try await withStore(kind) { store in
            _ = try await store.storePublished([Self.key(1), Self.key(2)], padding: [], submittedAt: Self.now)
            let again = try await store.storePublished([Self.key(2), Self.key(3), Self.key(3)], padding: [], submittedAt: Self.now)
            #expect(again.inserted == 1)
            // The same key data under another submission type is another row (primary key of the contract).
            let rapid = try await store.storePublished([Self.key(1, type: 1)], padding: [], submittedAt: Self.now)
            #expect(rapid.inserted == 1)
            #expect(try await store.count() == 4)
        }
    }

    @Test(arguments: TestDatabase.all)
    func realAndPaddingKeysAreCountedApartWhenSomeAreStoredAlready(kind: TestDatabase) async throws {
        try await withStore(kind) { store in
            _ = try await store.storePublished([Self.key(1), Self.key(2)], padding: [Self.key(9)], submittedAt: Self.now)
            let again = try await store.storePublished([Self.key(2), Self.key(3)], padding: [Self.key(9), Self.key(8), Self.key(7)], submittedAt: Self.now)
            #expect(again == StoreOutcome(inserted: 1, paddingInserted: 2))
            // A submission whose keys are all stored already (a repeat) stores no padding either.
            let repeated = try await store.storePublished([Self.key(3)], padding: [Self.key(6)], submittedAt: Self.now)
            #expect(repeated == StoreOutcome(inserted: 0, paddingInserted: 0))
            #expect(try await store.count() == 6)
        }
    }

    @Test(arguments: TestDatabase.all)
    func pendingKeysArePublishedOnlyWhenTheirUploadIs(kind: TestDatabase) async throws {
        try await withStore(kind) { store in
            let outcome = try await store.storePending([Self.key(1), Self.key(2)], padding: [Self.key(3)], reservation: "upload-a", submittedAt: Self.now)
            #expect(outcome == StoreOutcome(inserted: 2, paddingInserted: 1))
            #expect(try await store.count() == 0)
            #expect(try await store.all().isEmpty)
            #expect(try await store.pendingCount() == 3)
            try await store.publish(reservation: "upload-b")
            #expect(try await store.count() == 0)
            try await store.publish(reservation: "upload-a")
            #expect(try await store.count() == 3)
            #expect(try await store.pendingCount() == 0)
            // Published keys no longer name their upload: a second publication or a discard touches nothing.
            try await store.publish(reservation: "upload-a")
            #expect(try await store.discard(reservation: "upload-a") == 0)
            #expect(try await store.count() == 3)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aDiscardDeletesOnlyThatUploadsPendingKeys(kind: TestDatabase) async throws {
        try await withStore(kind) { store in
            _ = try await store.storePublished([Self.key(1)], padding: [])
            _ = try await store.storePending([Self.key(2)], padding: [Self.key(3)], reservation: "upload-a", submittedAt: Self.now)
            _ = try await store.storePending([Self.key(4)], padding: [], reservation: "upload-b", submittedAt: Self.now)
            #expect(try await store.discard(reservation: "upload-a") == 2)
            #expect(try await store.pendingCount() == 1)
            try await store.publish(reservation: "upload-b")
            #expect(try await store.pendingCount() == 0)
            #expect(try await store.all().map(\.key.keyData.first) == [1, 4])
        }
    }

    /// An app whose upload failed retries with the same TAN but other keys (a day has passed): the keys both tries
    /// share become the retry's, so that deleting what is left of the first try does not delete them.
    @Test(arguments: TestDatabase.all)
    func aPendingKeyOfAnotherUploadIsTakenOverAndAPublishedOneIsNot(kind: TestDatabase) async throws {
        try await withStore(kind) { store in
            _ = try await store.storePublished([Self.key(9)], padding: [])
            _ = try await store.storePending([Self.key(1), Self.key(2)], padding: [], reservation: "first-try", submittedAt: Self.now)
            var changed = Self.key(2)
            changed.transmissionRiskLevel = 3
            let retry = try await store.storePending([changed, Self.key(3), Self.key(9)], padding: [], reservation: "retry", submittedAt: Self.now)
            // Key 2 taken over (with the retry's fields), key 3 new, key 9 published already and left alone.
            #expect(retry.inserted == 2)
            #expect(try await store.discard(reservation: "first-try") == 1)
            #expect(try await store.discard(reservation: "retry-of-nothing") == 0)
            try await store.publish(reservation: "retry")
            #expect(try await store.pendingCount() == 0)
            let stored = try await store.all().map(\.key)
            #expect(stored.map(\.keyData.first) == [2, 3, 9])
            #expect(stored.first?.transmissionRiskLevel == 3)
            // The same upload again (same reservation) writes nothing: its keys are there.
            let repeated = try await store.storePending([Self.key(3)], padding: [Self.key(7)], reservation: "retry", submittedAt: Self.now)
            #expect(repeated == StoreOutcome(inserted: 0, paddingInserted: 0))
        }
    }

    /// Concurrent uploads publish in shared UPDATEs: each upload's keys, and only those, become publishable.
    @Test(arguments: TestDatabase.all)
    func concurrentPublicationsEachPublishTheirOwnKeys(kind: TestDatabase) async throws {
        try await withStore(kind) { store in
            for upload in 0..<40 {
                _ = try await store.storePending([Self.key(UInt8(upload))], padding: [], reservation: "upload-\(upload)", submittedAt: Self.now)
            }
            _ = try await concurrently(over: Array(0..<30)) { upload in try await store.publish(reservation: "upload-\(upload)") }
            #expect(try await store.all().map { Int($0.key.keyData[0]) } == Array(0..<30))
            #expect(try await store.pendingCount() == 10)
        }
    }

    @Test(arguments: TestDatabase.all)
    func pendingUploadsAreListedOldestFirstFromTheCutoff(kind: TestDatabase) async throws {
        try await withStore(kind) { store in
            _ = try await store.storePending([Self.key(1), Self.key(2)], padding: [], reservation: "newer", submittedAt: Self.now.addingTimeInterval(30))
            _ = try await store.storePending([Self.key(3)], padding: [], reservation: "older", submittedAt: Self.now)
            _ = try await store.storePending([Self.key(4)], padding: [], reservation: "newest", submittedAt: Self.now.addingTimeInterval(90))
            #expect(try await store.pendingUploads(since: Self.now.addingTimeInterval(60), limit: 10) == ["older", "newer"])
            #expect(try await store.pendingUploads(since: Self.now.addingTimeInterval(60), limit: 1) == ["older"])
            #expect(try await store.pendingUploads(since: Self.now, limit: 10).isEmpty)
        }
    }

    @Test(arguments: TestDatabase.all)
    func retentionDeletesKeysSubmittedBeforeTheWindow(kind: TestDatabase) async throws {
        try await withStore(kind) { store in
            let day: TimeInterval = 86400
            _ = try await store.storePublished([Self.key(1)], padding: [], submittedAt: Self.now)
            _ = try await store.storePublished([Self.key(2)], padding: [], submittedAt: Self.now.addingTimeInterval(2 * day))
            #expect(try await store.applyRetention(retentionDays: 14, now: Self.now.addingTimeInterval(14 * day)) == 0)
            #expect(try await store.applyRetention(retentionDays: 14, now: Self.now.addingTimeInterval(14 * day + 3600)) == 1)
            #expect(try await store.all().map(\.key.keyData) == [Data(repeating: 2, count: 16)])
        }
    }
}
