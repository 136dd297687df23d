import ExposureCore
import ExposureStatistics
import ExposureTestSupport
import Foundation
import Testing
@testable import Submission
@testable import SubmissionCore
import SubmissionDomain

/// The daily statistics of one upload's whole way, against the real services: the lab's result, the registration,
/// the TAN and its redemption, the keys; each counted once, fakes and repeats not at all, app-side figures served
/// from the next day on (docs/statistics.md).
@Suite struct SubmissionStatisticsTests {
    static let reader = [("Authorization", "Bearer \(TestServiceTokens.statisticsReader)")]

    @Test(arguments: TestDatabase.all)
    func oneUploadIsCountedOnceInEveryService(kind: TestDatabase) async throws {
        try await RealVerificationStack.run(kind) { stack in
            let guid = SecretHash.sha256Hex(UUID().uuidString)
            try #require(try await stack.lab.postJSON("/api/v1/lab/results", ["testResults": [["id": guid, "result": 2]]], headers: [("Authorization", "Bearer \(stack.labKey)")]).status == 204)
            let tan = try await stack.tan(for: ["key": guid, "keyType": "GUID"])
            let today = Payloads.today(Date())
            let keys = Payloads.bytes((0..<3).map { Payloads.key(UInt8(1 + $0), today: today, daysAgo: Int32($0 + 1)) })
            for fake in ["0", "0", "1"] {  // the upload, its repeat, a fake
                // A repeat comes after the first answer was lost: seconds later (a repeat within the same second
                // would count its TAN again, docs/statistics.md).
                stack.clock.advance(by: 2)
                let answer = try await stack.submission.postRaw(
                    SubmissionHarness.path, keys, headers: [("cwa-fake", fake), ("cwa-authorization", tan)], contentType: "application/x-protobuf"
                )
                try #require(answer.status == 200)
            }
            let day = stack.clock.now().ISO8601Format(.iso8601.year().month().day())
            let query = "/version/v1/statistics?from=\(day)&to=\(day)&format=csv"
            // Today nothing app-side is served, however often one asks.
            try await Task.sleep(for: .milliseconds(1500))
            #expect(try await stack.management["submission"]!.get(query, headers: Self.reader).text == "day,figure,breakdown,count\r\n")
            stack.clock.advance(by: 86400)
            let expected: [String: [String]] = [
                "testresult": ["\(day),lab_results_received,lab-1/pcr/2,1"],
                "verification": ["\(day),registrations,guid,1", "\(day),tans_issued,,1", "\(day),tans_redeemed,,1"],
                "submission": ["\(day),keys_submitted,,3", "\(day),uploads,cwa,1"],
            ]
            for (service, lines) in expected {
                // Until each service's flush stored its counts (the limit only ends a hang).
                var served: [String] = []
                try await pollUntil(interval: .milliseconds(200)) {
                    served = try await stack.management[service]!.get(query, headers: Self.reader).text.split(separator: "\r\n").dropFirst().map(String.init)
                    return served == lines
                }
                #expect(served == lines, "\(service)")
            }
        }
    }

    /// `submission-service distribute`, the scheduler's one-shot run (a Kubernetes CronJob), counts the keys it
    /// publishes as `serve`'s timer does; a run that publishes nothing counts nothing.
    @Test(arguments: TestDatabase.all)
    func theSchedulersRunCountsTheKeysItPublishes(kind: TestDatabase) async throws {
        let exports = FileManager.default.temporaryDirectory.appendingPathComponent("exports-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: exports) }
        try await kind.withFreshDatabaseURL { url in
            var configuration = try SubmissionConfiguration(TestServices.settings([
                "VERIFICATION_URL": "http://127.0.0.1:1", "EXPORT_DIR": exports.path, "SHIFTING_THRESHOLD": "1",
                "DATA_DIR": exports.path,
            ]))
            configuration.common.databaseURL = url
            let clock = ManualClock()
            let environment = TestServices.environment(clock: clock)
            let database = try await Database.open(configuration.common, migrator: SubmissionMigrations.migrator, environment: environment)
            do {
                // Three keys submitted two hours ago: the run publishes them in that hour's file.
                let submitted = clock.now().addingTimeInterval(-7200)
                let interval = Int32(submitted.epochSeconds / 600 / 144 * 144 - 144)
                let keys = (1...3).map { byte in
                    DiagnosisKey(
                        keyData: Data(repeating: UInt8(byte), count: 16), rollingStartIntervalNumber: interval, rollingPeriod: 144,
                        transmissionRiskLevel: 6, daysSinceOnsetOfSymptoms: 2, reportType: 1, originCountry: "DE",
                        visitedCountries: [], consentToFederation: false, submissionType: 0
                    )
                }
                try await DiagnosisKeyStore(database: database).storePublished(keys, padding: [], submittedAt: submitted)
                let first = try #require(try await SubmissionService.distribute(configuration, environment: environment))
                #expect(first.keysPublished == 3)
                // Again: the keys are out already, and the count stays.
                _ = try await SubmissionService.distribute(configuration, environment: environment)
                let today = StatisticsDay(of: clock.now())
                let counts = try await DailyStatisticsStore(database: database, service: SubmissionService.name).counts(from: today, through: today)
                #expect(counts.filter { $0.figure == "keys_published" }.map(\.count) == [3])
            } catch {
                Issue.record(error)
            }
            await database.shutdown()
        }
    }
}
