import ExposureCore
import ExposureTestSupport
import Foundation
import Testing

/// `<service> healthcheck`, as a container runtime runs it beside the service with the service's own settings: 0 and
/// one line on standard output while the service is ready, 1 and one line on standard error when it is not, soon.
@Suite struct HealthcheckCommandTests {
    static let services = ["testresult-service", "verification-service", "submission-service", "portal-service"]

    @Test func readyLiveAndDown() async throws {
        try await EndToEndStack.run(on: .sqlite) { stack in
            for executable in Self.services {
                let run = try await ServiceProcess.capture(executable, ["healthcheck"], environment: stack.environments[executable]!, timeout: .seconds(20))
                let service = executable.replacingOccurrences(of: "-service", with: "")
                let port = try #require(stack.ports["\(service)-management"])
                #expect(run.status == 0, "\(executable): \(run.standardError)")
                #expect(run.standardOutput == "\(service): ready: GET http://127.0.0.1:\(port)/health/ready answered 200\n")
                #expect(run.standardError.isEmpty)
            }

            // Test-result gone: its own check fails at once (nothing listens: "failed", where a probe that waited for
            // its timeout would say "no answer within"), verification is not ready (it checks test-result) but still
            // live.
            stack.kill("testresult-service")
            let gone = try await ServiceProcess.capture("testresult-service", ["healthcheck"], environment: stack.environments["testresult-service"]!, timeout: .seconds(20))
            #expect(gone.status == 1)
            #expect(gone.standardOutput.isEmpty)
            #expect(gone.standardError.hasPrefix("testresult: not ready: GET http://127.0.0.1:\(stack.ports["testresult-management"]!)/health/ready: connection refused: "))
            #expect(gone.standardError.split(separator: "\n").count == 1, "\(gone.standardError)")

            let verification = stack.environments["verification-service"]!
            let notReady = try await ServiceProcess.capture("verification-service", ["healthcheck"], environment: verification, timeout: .seconds(20))
            #expect(notReady.status == 1)
            #expect(notReady.standardError.hasSuffix("/health/ready answered 503 (down: testresult)\n"), "\(notReady.standardError)")
            let live = try await ServiceProcess.capture("verification-service", ["healthcheck", "--live"], environment: verification, timeout: .seconds(20))
            #expect(live.status == 0, "\(live.standardError)")
            #expect(live.standardOutput.hasPrefix("verification: live: GET "))
        }
    }

    /// `exposure-suite healthcheck` asks the four services of a suite where its layout puts them (here every port
    /// moved by the suite's prefixed variables), and fails once they are gone.
    @Test func theSuiteAsksAllFour() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("suite-health-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        var environment = ["DATA_DIR": data.path, "LOG_LEVEL": "error", "PORTAL_BCRYPT_COST": "4"]
        for variable in [
            "VERIFICATION_PORT", "VERIFICATION_INTERNAL_PORT", "VERIFICATION_ISSUER_PORT", "VERIFICATION_MANAGEMENT_PORT", "TESTRESULT_PORT", "TESTRESULT_INTERNAL_PORT",
            "TESTRESULT_MANAGEMENT_PORT", "SUBMISSION_PORT", "SUBMISSION_MANAGEMENT_PORT", "PORTAL_PORT", "PORTAL_MANAGEMENT_PORT",
        ] {
            environment[variable] = "\(ServiceProcess.freePort())"
        }
        let suite = try ServiceProcess("exposure-suite", arguments: ["serve"], environment: environment)
        for variable in ["TESTRESULT_MANAGEMENT_PORT", "VERIFICATION_MANAGEMENT_PORT", "SUBMISSION_MANAGEMENT_PORT", "PORTAL_MANAGEMENT_PORT"] {
            try await suite.waitUntilReady("http://127.0.0.1:\(environment[variable]!)/health/ready")
        }
        let ready = try await ServiceProcess.capture("exposure-suite", ["healthcheck"], environment: environment, timeout: .seconds(20))
        #expect(ready.status == 0, "\(ready.standardError)")
        #expect(ready.standardOutput == "suite: ready: testresult, verification, submission, portal answered 200\n")

        suite.kill()
        let gone = try await ServiceProcess.capture("exposure-suite", ["healthcheck", "--live"], environment: environment, timeout: .seconds(20))
        #expect(gone.status == 1)
        #expect(gone.standardError.hasPrefix("suite: not live: testresult: GET http://127.0.0.1:\(environment["TESTRESULT_MANAGEMENT_PORT"]!)/health/live: connection refused: "))
        #expect(gone.standardError.contains("; portal: GET "))
        #expect(gone.standardError.split(separator: "\n").count == 1, "\(gone.standardError)")
    }

    /// The settings `serve` takes are the healthcheck's too, as flags; an invalid one exits 1 (not 2, which Docker
    /// reserves in health checks), a bad `--timeout` is wrong words (64).
    @Test func settingsAndWrongWords() async throws {
        let port = ServiceProcess.freePort()
        let environment = TestServiceTokens.serviceDefaults.merging(["DATABASE_URL": "sqlite::memory:"]) { $1 }
        let flag = try await ServiceProcess.capture("portal-service", ["healthcheck", "--management-port", "\(port)", "--timeout", "2s"], environment: environment, timeout: .seconds(20))
        #expect(flag.status == 1)
        #expect(flag.standardError.hasPrefix("portal: not ready: GET http://127.0.0.1:\(port)/health/ready: connection refused: "), "\(flag.standardError)")
        let invalid = try await ServiceProcess.capture("portal-service", ["healthcheck", "--management-port", "none"], environment: environment, timeout: .seconds(20))
        #expect(invalid.status == 1)
        #expect(invalid.standardError.hasPrefix("portal healthcheck: invalid configuration: MANAGEMENT_PORT "), "\(invalid.standardError)")
        let timeout = try await ServiceProcess.capture("portal-service", ["healthcheck", "--timeout", "soon"], environment: environment, timeout: .seconds(20))
        #expect(timeout.status == 64, "\(timeout.standardError)")
    }
}
