import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import TestResult

/// Test-result's daily statistics: lab results received per lab, kind and result, served to readers on the
/// management listener (docs/statistics.md).
@Suite struct TestResultStatisticsTests {
    static let reader = [("Authorization", "Bearer \(TestServiceTokens.statisticsReader)")]

    @Test(arguments: TestDatabase.all)
    func labResultsAreCountedPerLabKindAndResult(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind, environment: ["STATISTICS_FLUSH_INTERVAL": "1s"]) { h in
            let ids = (0..<3).map { _ in SecretHash.sha256Hex(UUID().uuidString) }
            try #require(try await h.post(results: [["id": ids[0], "result": 2], ["id": ids[1], "result": 2], ["id": ids[2], "result": 1]]).status == 204)
            try #require(try await h.post("/api/v1/quicktest/results", results: [["id": SecretHash.sha256Hex("quick"), "result": 7]]).status == 204)
            // A refused batch counts nothing.
            #expect(try await h.post(results: [["id": "not-a-hash", "result": 2]]).status == 400)
            let today = h.clock.now().ISO8601Format(.iso8601.year().month().day())
            let path = "/version/v1/statistics?from=\(today)&to=\(today)&format=csv"
            let expected = [
                "day,figure,breakdown,count",
                "\(today),lab_results_received,lab-berlin/pcr/1,1",
                "\(today),lab_results_received,lab-berlin/pcr/2,2",
                "\(today),lab_results_received,lab-berlin/quick/7,1",
            ]
            // Until the recorder's flush stored the counts (the limit only ends a hang).
            var lines: [String] = []
            try await pollUntil(interval: .milliseconds(200)) {
                let answer = try await h.management.get(path, headers: Self.reader)
                Covers.status(200, of: "GET /version/v1/statistics", answer)
                lines = answer.text.split(separator: "\r\n").map(String.init)
                return lines == expected
            }
            #expect(lines == expected)
            Covers.status(401, of: "GET /version/v1/statistics", try await h.management.get(path), error: "unknown_reader")
        }
    }
}
