import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import TestResult

/// What test-result answers when its database fails: a JSON 500, never a verdict about the lab's credential or a
/// "pending" for a result it could not read, and a batch that could not be stored leaves what was stored before.
@Suite struct DatabaseFailureTests {
    @Test(arguments: TestDatabase.all)
    func aBatchThatCannotBeStoredAnswers500AndChangesNothing(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            let stored = TestResultHarness.guid(1)
            try #require(try await h.post(results: [["id": stored, "result": 1]]).status == 204)
            let batch: [[String: Any]] = [["id": stored, "result": 2]] + (2...4).map { ["id": TestResultHarness.guid($0), "result": 2] }
            try await FailureInjection.fail(.insert, on: "test_results", in: h.database)
            Covers.status(500, of: "POST /api/v1/lab/results", try await h.post(results: batch), error: "internal_error")
            Covers.status(500, of: "POST /api/v1/quicktest/results", try await h.post("/api/v1/quicktest/results", results: [["id": TestResultHarness.guid(5), "result": 7]]), error: "internal_error")
            try await FailureInjection.remove(from: "test_results", in: h.database)
            #expect(try await h.count() == 1)
            #expect(try await h.query(stored).json["testResult"] as? Int == 1)

            #expect(try await h.post(results: batch).status == 204)
            #expect(try await h.count() == 4)
            #expect(try await h.query(stored).json["testResult"] as? Int == 2)
        }
    }

    @Test(arguments: TestDatabase.all)
    func credentialsThatCannotBeReadAreNoRefusal(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            try await FailureInjection.withoutTable("lab_credentials", in: h.database) {
                try await h.post(results: [["id": TestResultHarness.guid(1), "result": 1]]).expectError(500, "internal_error")
            }
            #expect(try await h.post(results: [["id": TestResultHarness.guid(1), "result": 1]]).status == 204)
        }
    }

    @Test(arguments: TestDatabase.all)
    func resultsThatCannotBeReadAreNoPending(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            let id = TestResultHarness.guid(1)
            try #require(try await h.post(results: [["id": id, "result": 2]]).status == 204)
            try await FailureInjection.withoutTable("test_results", in: h.database) {
                Covers.status(500, of: "POST /api/v1/app/result", try await h.query(id), error: "internal_error")
                Covers.status(500, of: "POST /api/v1/app/results", try await h.internal.postJSON("/api/v1/app/results", ["ids": [id]]), error: "internal_error")
            }
            #expect(try await h.query(id).json["testResult"] as? Int == 2)
        }
    }
}
