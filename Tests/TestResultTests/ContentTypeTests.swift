import ExposureTestSupport
import Foundation
import Testing

/// Test-result reads JSON bodies only: a body sent as anything else is refused with 415 and a JSON error, and
/// nothing of it is stored.
@Suite struct ContentTypeTests {
    @Test(arguments: TestDatabase.all)
    func bodiesThatAreNotJSONAre415(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            let id = TestResultHarness.guid(1)
            let auth = [("Authorization", "Bearer \(h.labKey)")]
            let requests: [(TestHTTPClient, String, [String: Any], [(String, String)])] = [
                (h.lab, "/api/v1/lab/results", ["testResults": [["id": id, "result": 2]]], auth),
                (h.lab, "/api/v1/quicktest/results", ["testResults": [["id": id, "result": 7]]], auth),
                (h.internal, "/api/v1/app/result", ["id": id], []),
                (h.internal, "/api/v1/app/results", ["ids": [id]], []),
            ]
            var refused: [TestResponse] = []
            for (client, path, body, headers) in requests {
                let json = try JSONSerialization.data(withJSONObject: body)
                for contentType in ["text/plain", "application/x-www-form-urlencoded", "application/xml"] {
                    let response = try await client.postRaw(path, Array(json), headers: headers, contentType: contentType)
                    refused.append(response)
                }
            }
            Covers.status(415, of: "POST /api/v1/lab/results", among: refused, error: "unsupported_media_type")
            Covers.status(415, of: "POST /api/v1/quicktest/results", among: refused, error: "unsupported_media_type")
            Covers.status(415, of: "POST /api/v1/app/result", among: refused, error: "unsupported_media_type")
            Covers.status(415, of: "POST /api/v1/app/results", among: refused, error: "unsupported_media_type")
            #expect(try await h.count() == 0)
        }
    }
}
