import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Submission
@testable import SubmissionCore
@testable import TestResult
@testable import Verification

/// What an observer who can read `/metrics` learns about one phone's requests: nothing, on every listener.
///
/// The attack: read the metrics, let a phone send one request, read them again; if anything moved differently for a
/// real request than for a fake one, the observer knows the phone's owner tested positive. Against the code before
/// the management listeners and hourly tallies, `/metrics` answered on the app listeners and
/// `verification_requests_total{outcome="fake"}`, `testresult_queries_total{outcome="found"}` and verification's
/// `tan_verify` valid/refused counters moved per request.
@Suite(.serialized) struct MetricsPrivacyTests {
    /// The samples an observer could compare, from the process's registry (every service of the stack shares it).
    /// A request's duration is on the wire already and drawn from one distribution for both kinds (privacy.md,
    /// "Timing"): its histogram's buckets and sum are left out, its count is not.
    ///
    /// The pools' load gauges (`database_connections_in_use`, `database_operations_waiting`) are read once the pools are
    /// idle: a background job (a statistics flush, a retention round) holding a connection at the moment of a reading
    /// moves them for neither kind of request, and did once in CI. A request that left a connection held would keep
    /// them from settling, and the comparison would see it.
    static func snapshot(_ stack: RealVerificationStack) async throws -> [String: Double] {
        var samples: [String: Double] = [:]
        for _ in 0..<50 {
            let text = try await stack.management[VerificationService.name]!.get("/metrics").text
            samples = PrometheusText.samples(in: text).filter { series, _ in
                !(series.hasPrefix("http_request_duration_seconds_bucket") || series.hasPrefix("http_request_duration_seconds_sum"))
            }
            let load = samples.filter { $0.key.hasPrefix("database_connections_in_use") || $0.key.hasPrefix("database_operations_waiting") }
            if load.values.allSatisfy({ $0 == 0 }) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        return samples
    }

    static func difference(_ before: [String: Double], _ after: [String: Double]) -> [String: Double] {
        var moved: [String: Double] = [:]
        for series in Set(before.keys).union(after.keys) {
            let change = (after[series] ?? 0) - (before[series] ?? 0)
            if change != 0 { moved[series] = change }
        }
        return moved
    }

    /// Sends `real`, then `fake`, and expects both to move the metrics alike.
    static func expectAlike(
        _ stack: RealVerificationStack, _ name: String,
        real: () async throws -> TestResponse, fake: () async throws -> TestResponse
    ) async throws {
        let before = try await snapshot(stack)
        let realAnswer = try await real()
        let between = try await snapshot(stack)
        let fakeAnswer = try await fake()
        let after = try await snapshot(stack)
        #expect(realAnswer.status == fakeAnswer.status, "\(name): \(realAnswer.status) vs \(fakeAnswer.status)")
        let byReal = difference(before, between), byFake = difference(between, after)
        #expect(byReal == byFake, "\(name): a real request moved \(byReal.sorted { $0.key < $1.key }), a fake one \(byFake.sorted { $0.key < $1.key })")
        #expect(!byReal.isEmpty, "\(name): the comparison saw no metric at all")
    }

    @Test(arguments: TestDatabase.all)
    func realAndFakeRequestsLeaveEveryMetricAlike(kind: TestDatabase) async throws {
        try await RealVerificationStack.run(kind) { stack in
            let guid = SecretHash.sha256Hex(UUID().uuidString)
            let upload = try await stack.lab.postJSON(
                "/api/v1/lab/results", ["testResults": [["id": guid, "result": 2]]], headers: [("Authorization", "Bearer \(stack.labKey)")])
            try #require(upload.status == 204)
            let app = stack.verification
            var token = ""
            try await Self.expectAlike(stack, "registrationToken", real: {
                let answer = try await app.postJSON("/version/v1/registrationToken", ["key": guid, "keyType": "GUID"], headers: [("cwa-fake", "0")])
                token = answer.json["registrationToken"] as? String ?? ""
                return answer
            }, fake: {
                try await app.postJSON("/version/v1/registrationToken", ["key": guid, "keyType": "GUID"], headers: [("cwa-fake", "1")])
            })
            try await Self.expectAlike(stack, "testresult", real: {
                try await app.postJSON("/version/v1/testresult", ["registrationToken": token], headers: [("cwa-fake", "0")])
            }, fake: {
                try await app.postJSON("/version/v1/testresult", ["registrationToken": UUID().uuidString.lowercased()], headers: [("cwa-fake", "1")])
            })
            var tan = ""
            try await Self.expectAlike(stack, "tan", real: {
                let answer = try await app.postJSON("/version/v1/tan", ["registrationToken": token], headers: [("cwa-fake", "0")])
                tan = answer.json["tan"] as? String ?? ""
                return answer
            }, fake: {
                try await app.postJSON("/version/v1/tan", ["registrationToken": UUID().uuidString.lowercased()], headers: [("cwa-fake", "1")])
            })
            let today = Payloads.today(Date())
            let body = Payloads.bytes((0..<3).map { Payloads.key(UInt8(40 + $0), today: today, daysAgo: Int32($0 + 1)) })
            try await Self.expectAlike(stack, "submission", real: {
                try await stack.submission.postRaw(
                    SubmissionHarness.path, body, headers: [("cwa-fake", "0"), ("cwa-authorization", tan)], contentType: "application/x-protobuf")
            }, fake: {
                try await stack.submission.postRaw(
                    SubmissionHarness.path, body, headers: [("cwa-fake", "1"), ("cwa-authorization", UUID().uuidString.lowercased())],
                    contentType: "application/x-protobuf")
            })
            #expect(try await stack.store.count() == 3)

            // An hour later the operators see what the hour's requests decided, as one count per outcome.
            stack.clock.advance(by: 3600)
            _ = try await app.postJSON("/version/v1/registrationToken", ["key": guid, "keyType": "GUID"], headers: [("cwa-fake", "1")])
            _ = try await stack.submission.postRaw(
                SubmissionHarness.path, body, headers: [("cwa-fake", "1"), ("cwa-authorization", UUID().uuidString.lowercased())],
                contentType: "application/x-protobuf")
            let metrics = try await stack.management[SubmissionService.name]!.get("/metrics").text
            for endpoint in ["registrationToken", "testresult", "tan"] {
                for outcome in ["real", "fake"] {
                    #expect(PrometheusText.value(in: metrics, name: "verification_requests_last_hour", labels: ["endpoint": endpoint, "outcome": outcome]) == 1)
                }
            }
            #expect(PrometheusText.value(in: metrics, name: "submission_requests_last_hour", labels: ["outcome": "real"]) == 1)
            #expect(PrometheusText.value(in: metrics, name: "submission_requests_last_hour", labels: ["outcome": "fake"]) == 1)
            #expect(PrometheusText.value(in: metrics, name: "submission_keys_stored_last_hour") == 3)
        }
    }

    /// `/metrics` and `/health/ready` answer on the management listeners only; every listener that apps, labs,
    /// officers or other services reach answers 404 for them.
    @Test func operatorEndpointsAreOnlyOnTheManagementListeners() async throws {
        try await RealVerificationStack.run(.sqlite) { stack in
            #expect(stack.listeners.count == 9)  // test-result 3, verification 4 (with the issuer listener), submission 2
            for (name, client) in stack.listeners {
                let isManagement = name.hasSuffix("/\(ManagementRouter.listenerName)")
                for path in ["/metrics", "/health/ready"] {
                    let answer = try await client.get(path, headers: [(ServiceTokens.header, TestServiceTokens.tests)])
                    #expect(answer.status == (isManagement ? 200 : 404), "\(name)\(path): \(answer.status)")
                }
                #expect(try await client.get("/health/live").status == 200, "\(name)/health/live")
            }
        }
    }
}
