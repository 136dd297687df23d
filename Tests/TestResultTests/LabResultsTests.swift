import ExposureCore
import ExposureTestSupport
import Foundation
@testable import TestResultDomain
import Testing
@testable import TestResult

@Suite struct LabResultsTests {
    @Test(arguments: TestDatabase.all)
    func storedResultIsAnsweredToVerification(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            let id = TestResultHarness.guid(1)
            let posted = try await h.post(results: [["id": id, "result": 2, "sc": 1_749_990_000]])
            Covers.status(204, of: "POST /api/v1/lab/results", posted)
            #expect(posted.body.isEmpty)
            let answer = try await h.query(id)
            Covers.status(200, of: "POST /api/v1/app/result", answer)
            #expect(answer.json["testResult"] as? Int == 2)
            #expect(answer.json["sc"] as? Int == 1_749_990_000)
            #expect(answer.json["labId"] as? String == TestResultHarness.labID)
        }
    }

    @Test(arguments: TestDatabase.all)
    func unknownIdIsPendingNowAndWritesNothing(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            let answer = try await h.query(TestResultHarness.guid(404))
            #expect(answer.status == 200)
            #expect(answer.json["testResult"] as? Int == 0)
            #expect(answer.json["sc"] as? Int == Int(h.clock.now().epochSeconds))
            #expect(answer.json["labId"] == nil)
            try #require(try await h.count() == 0)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aBatchLookupAnswersEachIdInTheOrderAsked(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            let positive = TestResultHarness.guid(10)
            let dob = "x" + TestResultHarness.guid(11).dropFirst()
            try #require(try await h.post(results: [["id": positive, "result": 2, "sc": 1_749_990_000], ["id": dob, "result": 1]]).status == 204)
            let unknown = TestResultHarness.guid(12)
            let response = try await h.internal.postJSON("/api/v1/app/results", ["ids": [unknown, positive.uppercased(), dob, positive]])
            Covers.status(200, of: "POST /api/v1/app/results", response)
            let results = try #require(response.json["results"] as? [[String: Any]])
            #expect(results.map { $0["testResult"] as? Int } == [0, 2, 1, 2])
            #expect(results.map { $0["sc"] as? Int } == [Int(h.clock.now().epochSeconds), 1_749_990_000, Int(h.clock.now().epochSeconds), 1_749_990_000])
            #expect(results.map { $0["labId"] as? String } == [nil, TestResultHarness.labID, TestResultHarness.labID, TestResultHarness.labID])
            // Each answer is the single lookup's answer.
            let single = try await h.query(positive)
            #expect(single.json["testResult"] as? Int == 2)
            #expect(single.json["sc"] as? Int == 1_749_990_000)
            try #require(try await h.count() == 2)
        }
    }

    @Test(arguments: TestDatabase.all)
    func badBatchLookupsAreRefusedWithTheReason(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            let empty = try await h.internal.postJSON("/api/v1/app/results", ["ids": [String]()])
            Covers.status(400, of: "POST /api/v1/app/results", empty, error: "invalid_id")
            let bad = try await h.internal.postJSON("/api/v1/app/results", ["ids": [TestResultHarness.guid(1), "short"]])
            #expect(bad.status == 400)
            #expect((bad.json["message"] as? String)?.contains("ids[1]") == true)
            let tooMany = try await h.internal.postJSON("/api/v1/app/results", ["ids": (0...ResultLookupBatch.maxIDs).map { TestResultHarness.guid($0) }])
            Covers.status(413, of: "POST /api/v1/app/results", tooMany, error: "too_many_ids")
            let full = try await h.internal.postJSON("/api/v1/app/results", ["ids": (1...ResultLookupBatch.maxIDs).map { TestResultHarness.guid($0) }])
            #expect(full.status == 200)
            #expect((full.json["results"] as? [Any])?.count == ResultLookupBatch.maxIDs)
            for body in ["{", "{\"ids\": 1}", "{\"ids\": [1]}", "{}", "[]"] {
                let response = try await h.internal.postRaw("/api/v1/app/results", Array(body.utf8))
                #expect(response.status == 400, "body: \(body)")
                #expect(response.json["error"] != nil, "body: \(body)")
            }
            let onLabListener = try await h.lab.postJSON("/api/v1/app/results", ["ids": [TestResultHarness.guid(1)]])
            #expect(onLabListener.status == 404)
        }
    }

    @Test(arguments: TestDatabase.all)
    func missingScDefaultsToReceptionTime(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            let id = TestResultHarness.guid(2)
            try #require(try await h.post(results: [["id": id, "result": 1]]).status == 204)
            try #require(try await h.query(id).json["sc"] as? Int == Int(h.clock.now().epochSeconds))
        }
    }

    @Test(arguments: TestDatabase.all)
    func dateOfBirthVariantIdsAreAcceptedInEitherCase(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            let dob = "X" + TestResultHarness.guid(3).dropFirst().uppercased()
            try #require(try await h.post(results: [["id": dob, "result": 2]]).status == 204)
            try #require(try await h.query(dob.lowercased()).json["testResult"] as? Int == 2)
            try #require(try await h.query(dob).json["testResult"] as? Int == 2)
        }
    }

    @Test(arguments: TestDatabase.all)
    func correctionsUpdateUnlessRedeemed(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            let id = TestResultHarness.guid(4)
            try #require(try await h.post(results: [["id": id, "result": 3]]).status == 204)
            try #require(try await h.post(results: [["id": id, "result": 2]]).status == 204)
            try #require(try await h.query(id).json["testResult"] as? Int == 2)
            // Redeemed by retention: a later correction no longer changes it.
            h.clock.advance(by: 22 * 86400)
            let store = TestResultStore(database: h.database)
            _ = try await store.applyRetention(RetentionPolicy(), now: h.clock.now())
            try #require(try await h.query(id).json["testResult"] as? Int == 4)
            try #require(try await h.post(results: [["id": id, "result": 1]]).status == 204)
            try #require(try await h.query(id).json["testResult"] as? Int == 4)
        }
    }

    @Test(arguments: TestDatabase.all)
    func quickTestsUseTheirOwnCodes(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            let id = TestResultHarness.guid(5)
            Covers.status(204, of: "POST /api/v1/quicktest/results", try await h.post("/api/v1/quicktest/results", results: [["id": id, "result": 5]]))
            try #require(try await h.post("/api/v1/quicktest/results", results: [["id": id, "result": 7]]).status == 204)
            try #require(try await h.query(id).json["testResult"] as? Int == 7)
            let pcrOnQuick = try await h.post("/api/v1/quicktest/results", results: [["id": id, "result": 2]])
            Covers.status(400, of: "POST /api/v1/quicktest/results", pcrOnQuick)
            #expect((pcrOnQuick.json["message"] as? String)?.contains("testResults[0].result") == true)
            let quickOnPcr = try await h.post(results: [["id": id, "result": 7]])
            #expect(quickOnPcr.status == 400)
            // Neither refusal changed the stored result.
            #expect(try await h.query(id).json["testResult"] as? Int == 7)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aBadItemAtTheEndStoresNothing(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            var results: [[String: Any]] = (0..<999).map { ["id": TestResultHarness.guid(1000 + $0), "result": 1] }
            results.append(["id": "not-a-hash", "result": 1])
            let response = try await h.post(results: results)
            Covers.status(400, of: "POST /api/v1/lab/results", response, error: "invalid_result")
            #expect((response.json["message"] as? String)?.hasPrefix("testResults[999].id") == true)
            try #require(try await h.count() == 0)
        }
    }

    @Test(arguments: TestDatabase.all)
    func invalidBatchesAreRefusedWithTheirReason(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind, environment: ["MAX_BATCH_SIZE": "10"]) { h in
            let id = TestResultHarness.guid(6)
            let cases: [([[String: Any]], Int, String)] = [
                ([], 400, "invalid_result"),
                ([["id": id, "result": 0]], 400, "invalid_result"),
                ([["id": id, "result": 4]], 400, "invalid_result"),
                ([["id": id, "result": 2, "sc": h.clock.now().epochSeconds + 86400]], 400, "invalid_result"),
                ([["id": id, "result": 2, "sc": -5]], 400, "invalid_result"),
                ([["id": String(id.dropLast()), "result": 2]], 400, "invalid_result"),
                ((0..<11).map { ["id": TestResultHarness.guid($0), "result": 1] }, 413, "batch_too_large"),
            ]
            for (results, status, code) in cases {
                let response = try await h.post(results: results)
                #expect(response.status == status)
                #expect(response.json["error"] as? String == code)
            }
            try #require(try await h.count() == 0)
        }
    }

    @Test(arguments: TestDatabase.all)
    func malformedBodiesAreClientErrors(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            let auth = [("Authorization", "Bearer \(h.labKey)")]
            let bodies: [String] = [
                "{",
                "[]",
                "{\"testResults\": \"nope\"}",
                "{\"testResults\": [{\"id\": 5, \"result\": 1}]}",
                "{\"testResults\": [{\"result\": 1}]}",
                "{\"testResults\": [{\"id\": \"\(TestResultHarness.guid(1))\", \"result\": \"positive\"}]}",
            ]
            for (path, _) in TestResultHarness.labPaths {
                for body in bodies {
                    let response = try await h.lab.postRaw(path, Array(body.utf8), headers: auth)
                    #expect(response.status == 400, "\(path), body: \(body)")
                    #expect(response.json["error"] != nil)
                }
            }
            for body in ["{", "{\"id\": 1}", "{}"] {
                Covers.status(400, of: "POST /api/v1/app/result", try await h.internal.postRaw("/api/v1/app/result", Array(body.utf8)))
            }
            try #require(try await h.query("short").status == 400)
        }
    }

    @Test(arguments: TestDatabase.all)
    func oversizedBodiesAreRefusedBeforeParsing(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind, environment: ["MAX_BODY_BYTES": "2048"]) { h in
            var refused: [TestResponse] = []
            for (path, positive) in TestResultHarness.labPaths {
                let results: [[String: Any]] = (0..<40).map { ["id": TestResultHarness.guid($0), "result": positive] }
                refused.append(try await h.post(path, results: results))
            }
            Covers.status(413, of: "POST /api/v1/lab/results", among: refused)
            Covers.status(413, of: "POST /api/v1/quicktest/results", among: refused)
            try #require(try await h.count() == 0)
            // The internal listener has a body limit of its own: 10,000 bytes.
            let ids = (0..<160).map { TestResultHarness.guid($0) }
            let batch = try await h.internal.postJSON("/api/v1/app/results", ["ids": ids])
            #expect(batch.status == 413)
            #expect(batch.json["error"] as? String == "payload_too_large")
            let padded = try await h.internal.postRaw("/api/v1/app/result", Array((#"{"id": ""# + String(repeating: "a", count: 10_000) + #""}"#).utf8))
            Covers.status(413, of: "POST /api/v1/app/result", padded, error: "payload_too_large")
        }
    }

    @Test(arguments: TestDatabase.all)
    func endpointsLiveOnTheirOwnListener(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            try #require(try await h.lab.postJSON("/api/v1/app/result", ["id": TestResultHarness.guid(1)]).status == 404)
            let onInternal = try await h.internal.postJSON(
                "/api/v1/lab/results", ["testResults": [["id": TestResultHarness.guid(1), "result": 1]]],
                headers: [("Authorization", "Bearer \(h.labKey)")]
            )
            #expect(onInternal.status == 404)
            // Operators' endpoints are on the management listener only.
            for client in [h.lab, h.internal] {
                #expect(try await client.get("/health/ready").status == 404)
                #expect(try await client.get("/metrics").status == 404)
                #expect(try await client.get("/health/live").status == 200)
            }
            #expect(try await h.management.get("/health/ready").status == 200)
            #expect(try await h.management.get("/metrics").status == 200)
        }
    }

    /// The attack: anyone who reached the internal listener could ask for any result without registering a test.
    /// Now a request without verification's token is refused before it is read, and the lab's key is no such token.
    @Test(arguments: TestDatabase.all)
    func theInternalListenerAnswersOnlyVerification(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            try #require(try await h.post(results: [["id": TestResultHarness.guid(7), "result": 2]]).status == 204)
            let bare = TestHTTPClient(port: h.internal.port)
            let anonymous = try await bare.postJSON("/api/v1/app/result", ["id": TestResultHarness.guid(7)])
            Covers.status(401, of: "POST /api/v1/app/result", anonymous, error: "unknown_caller")
            let asLab = try await bare.postJSON(
                "/api/v1/app/result", ["id": TestResultHarness.guid(7)], headers: [(ServiceTokens.header, h.labKey), ("Authorization", "Bearer \(h.labKey)")])
            asLab.expectError(401, "unknown_caller")
            let batch = try await bare.postJSON("/api/v1/app/results", ["ids": [TestResultHarness.guid(7)]])
            Covers.status(401, of: "POST /api/v1/app/results", batch, error: "unknown_caller")
            let asVerification = try await bare.postJSON(
                "/api/v1/app/result", ["id": TestResultHarness.guid(7)], headers: [(ServiceTokens.header, TestServiceTokens.verification)])
            #expect(asVerification.status == 200)
            #expect(asVerification.json["testResult"] as? Int == 2)
        }
    }

    /// The attack: the portal's or submission's token (both configured on test-result's internal listener in a stack
    /// that shares one `INTERNAL_API_TOKENS`) used to look up results. Only verification polls results: every other
    /// caller is a 403 `forbidden_caller` before the body is read.
    @Test(arguments: TestDatabase.all)
    func onlyVerificationLooksUpResults(kind: TestDatabase) async throws {
        // Every service's token configured, as an operator who shares one INTERNAL_API_TOKENS among the listeners does.
        try await TestResultHarness.run(on: kind, environment: ["INTERNAL_API_TOKENS": TestServiceTokens.internalAPITokens]) { h in
            try #require(try await h.post(results: [["id": TestResultHarness.guid(8), "result": 2]]).status == 204)
            let bare = TestHTTPClient(port: h.internal.port)
            var forbidden: [TestResponse] = []
            for token in [TestServiceTokens.submission, TestServiceTokens.portal, TestServiceTokens.portalToTestResult, TestServiceTokens.tests] {
                let headers = [(ServiceTokens.header, token)]
                forbidden.append(try await bare.postJSON("/api/v1/app/result", ["id": TestResultHarness.guid(8)], headers: headers))
                forbidden.append(try await bare.postJSON("/api/v1/app/results", ["ids": [TestResultHarness.guid(8)]], headers: headers))
            }
            Covers.status(403, of: "POST /api/v1/app/result", among: forbidden, error: "forbidden_caller")
            Covers.status(403, of: "POST /api/v1/app/results", among: forbidden, error: "forbidden_caller")
            #expect(!forbidden.contains { $0.text.contains("testResult") })
            // A statistics reader's token is no service token here at all.
            let reader = [(ServiceTokens.header, TestServiceTokens.statisticsReader)]
            try await bare.postJSON("/api/v1/app/result", ["id": TestResultHarness.guid(8)], headers: reader).expectError(401, "unknown_caller")
            let asVerification = [(ServiceTokens.header, TestServiceTokens.verification)]
            let batch = try await bare.postJSON("/api/v1/app/results", ["ids": [TestResultHarness.guid(8)]], headers: asVerification)
            #expect(batch.status == 200)
        }
    }

    @Test(arguments: TestDatabase.all)
    func tenThousandResultsInBatchesOfAThousand(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            for batch in 0..<10 {
                let results: [[String: Any]] = (0..<1000).map { ["id": TestResultHarness.guid(batch * 1000 + $0), "result": 1 + ($0 % 3)] }
                try #require(try await h.post(results: results).status == 204)
            }
            try #require(try await h.count() == 10_000)
            try #require(try await h.query(TestResultHarness.guid(9_999)).json["testResult"] as? Int == 1 + (999 % 3))
        }
    }

    @Test(arguments: TestDatabase.all)
    func duplicateIdsInOneBatchKeepTheLast(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            let id = TestResultHarness.guid(7)
            try #require(try await h.post(results: [["id": id, "result": 1], ["id": id, "result": 2]]).status == 204)
            try #require(try await h.query(id).json["testResult"] as? Int == 2)
            try #require(try await h.count() == 1)
        }
    }
}
