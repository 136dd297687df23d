import ExposureCore
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
        try await kind.withFreshDatabaseURL { url in
            var variables = ["DATABASE_URL": "\(url.connectionString)", "PORT": "0", "INTERNAL_PORT": "0", "BIND_HOST": "127.0.0.1"]
            variables.merge(extra) { $1 }
            let configuration = try TestResultConfiguration(TestServices.settings(variables))
            let clock = ManualClock(Date(timeIntervalSince1970: 1_750_000_000))
            let environment = TestServices.environment(clock: clock)
            let bundle = try await TestResultService.makeBundle(configuration, environment: environment)
            let database = try await Database.connect(url, poolSize: 2, logger: TestLogger.quiet)
            let key = try await TestResultAdmin.addLab(labID, store: LabCredentialStore(database: database), random: SystemRandomSource(), now: clock.now())
            do {
                try await TestServices.withRunning([bundle]) { running in
                    let harness = TestResultHarness(
                        lab: await TestServices.client(running, TestResultService.name, TestResultService.labListener),
                        internal: await TestServices.client(running, TestResultService.name, TestResultService.internalListener),
                        management: await TestServices.management(running, TestResultService.name),
                        clock: clock,
                        labKey: key,
                        database: database
                    )
                    try await body(harness)
                }
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
