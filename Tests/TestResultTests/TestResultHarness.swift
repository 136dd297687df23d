import ExposureCore
import ExposureStack
import ExposureTestSupport
import Foundation
import SQLKit
@testable import TestResult

/// A running test-result service on free ports with one registered lab, for tests over real HTTP.
struct TestResultHarness {
    let lab: TestHTTPClient
    let `internal`: TestHTTPClient
    let management: TestHTTPClient
    let clock: ManualClock
    let labKey: String
    let database: Database

    static let labID = "lab-berlin"
    /// The two paths labs post to, each with a positive result of its kind.
    static let labPaths: [(path: String, positive: Int)] = [("/api/v1/lab/results", 2), ("/api/v1/quicktest/results", 7)]

    static func run(
        on kind: TestDatabase,
        environment extra: [String: String] = [:],
        _ body: (TestResultHarness) async throws -> Void
    ) async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_750_000_000))
        try await TestStack.withRunning([.testResult], on: kind, clock: clock, seed: 42) { plan in
            plan.set(.testResult, extra)
        } _: { stack in
            let database = try await stack.connect(.testResult)
            let key = try await TestResultAdmin.addLab(labID, store: LabCredentialStore(database: database), random: SystemRandomSource(), now: clock.now())
            do {
                try await body(TestResultHarness(
                    lab: stack.client(.testResult, TestResultService.labListener),
                    internal: stack.client(.testResult, TestResultService.internalListener),
                    management: stack.management(.testResult),
                    clock: clock,
                    labKey: key,
                    database: database
                ))
                await database.shutdown()
            } catch {
                await database.shutdown()
                throw error
            }
        }
    }

    /// Posts a batch as the registered lab (or with another key).
    func post(_ path: String = "/api/v1/lab/results", results: [[String: Any]], labId: String? = nil, key: String? = nil) async throws -> TestResponse {
        var body: [String: Any] = ["testResults": results]
        if let labId { body["labId"] = labId }
        return try await lab.postJSON(path, body, headers: [("Authorization", "Bearer \(key ?? labKey)")])
    }

    func query(_ id: String) async throws -> TestResponse {
        try await self.internal.postJSON("/api/v1/app/result", ["id": id])
    }

    func count() async throws -> Int {
        try await database.withConnection { connection in
            try await connection.raw("SELECT COUNT(*) AS n FROM test_results").first()!.decode(column: "n", as: Int.self)
        }
    }

    /// A counter of `/metrics` (0 until it has counted anything).
    func metric(_ name: String, _ labels: [String: String]) async throws -> Double {
        PrometheusText.count(in: try await management.get("/metrics").text, name: name, labels: labels)
    }

    static func guid(_ n: Int) -> String { SecretHash.sha256Hex("guid-\(n)") }
}
