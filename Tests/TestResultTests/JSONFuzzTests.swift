import ExposureCore
import ExposureTestSupport
import Foundation
import SQLKit
import Testing

/// Random JSON to every test-result endpoint: never a crash or a 5xx, a 4xx always with a JSON error, and nothing
/// stored but what a valid request carries. A twisted request may still be valid (another result code, say);
/// that one must succeed cleanly. `FUZZ_SEED=<n>` replays a run.
@Suite struct JSONFuzzTests {
    @Test(arguments: TestDatabase.all)
    func randomJSONIsRefusedOrHandledCleanly(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            let fuzz = JSONFuzz(
                ByteMutator(defaultSeed: 20_261_126),
                words: ["pcr", "quick", TestResultHarness.labID, "lab-munich"],
                fieldNames: ["testResults", "id", "result", "sc", "labId", "ids"]
            )
            let pcr = TestResultHarness.guid(1), quick = TestResultHarness.guid(2)
            let endpoints: [(client: TestHTTPClient, path: String, template: [String: Any], item: [String: Any]?)] = [
                (h.lab, "/api/v1/lab/results", ["testResults": [["id": pcr, "result": 2]]], ["id": pcr, "result": 2]),
                (h.lab, "/api/v1/quicktest/results", ["testResults": [["id": quick, "result": 7]]], ["id": quick, "result": 7]),
                (h.internal, "/api/v1/app/result", ["id": pcr], nil),
                (h.internal, "/api/v1/app/results", ["ids": [pcr, quick]], nil),
            ]
            var statuses: [Int: Int] = [:]
            for round in 0..<600 {
                let endpoint = endpoints[round % endpoints.count]
                let body: Any = switch (round / endpoints.count) % 3 {
                case 0: fuzz.randomValue()
                case 1: fuzz.twisted(endpoint.template)
                default: endpoint.item.map { ["testResults": [fuzz.twisted($0)]] } ?? fuzz.twisted(endpoint.template)
                }
                let bytes = JSONFuzz.encode(body)
                let response = try await endpoint.client.postRaw(endpoint.path, bytes, headers: [("Authorization", "Bearer \(h.labKey)")])
                statuses[response.status, default: 0] += 1
                switch response.status {
                case 200, 204:
                    break
                case 400..<500:
                    #expect(response.json["error"] is String, "\(endpoint.path): \(response.text)")
                default:
                    Issue.record("\(endpoint.path) \(String(decoding: bytes, as: UTF8.self).prefix(200)): \(response.status) \(response.text)")
                }
            }
            let stored = try await h.database.withConnection { connection in
                try await connection.raw("SELECT id FROM test_results").all().map { try $0.decode(column: "id", as: String.self) }
            }
            #expect(Set(stored).isSubset(of: [pcr, quick]), "stored: \(stored)")
            #expect(statuses.filter { (400..<500).contains($0.key) }.values.reduce(0, +) > 400, "\(statuses)")
            print("JSON fuzzing of test-result (\(kind)): \(statuses.sorted { $0.key < $1.key })")
        }
    }
}
