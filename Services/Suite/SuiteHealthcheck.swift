import ExposureCore
import Portal
import Submission
import TestResult
import Verification

/// `exposure-suite healthcheck`: the four services' management listeners, where the suite's layout puts them, asked
/// together; healthy when every one answers 200.
enum SuiteHealthcheck {
    /// Each service's probe, in start order, with the name its line uses.
    static func probes(environment: [String: String], options: HealthcheckOptions) throws -> [(service: String, probe: HealthProbe)] {
        let layout = try SuiteLayout(environment: environment, createDataDirectory: false)
        let services = [
            ("testresult", "TESTRESULT", TestResultConfiguration.defaultManagementPort),
            ("verification", "VERIFICATION", VerificationConfiguration.defaultManagementPort),
            ("submission", "SUBMISSION", SubmissionConfiguration.defaultManagementPort),
            ("portal", "PORTAL", PortalConfiguration.defaultManagementPort),
        ]
        return try services.map { name, prefix, port in
            // Only the settings every service reads the same way: where the management listener is.
            let common = try CommonSettings(layout.settings(for: prefix, defaults: [:]), defaultDatabase: "sqlite::memory:", managementPort: port)
            return (name, HealthProbe(listener: common.managementListener, route: options.route, timeout: options.duration))
        }
    }

    /// Asks every service at once; healthy only when all are, with one line naming the services that are not.
    static func run(environment: [String: String], options: HealthcheckOptions) async throws -> HealthProbe.Outcome {
        let probes = try probes(environment: environment, options: options)
        let outcomes = await withTaskGroup(of: (Int, HealthProbe.Outcome).self) { group in
            for (index, entry) in probes.enumerated() {
                group.addTask { (index, await entry.probe.run()) }
            }
            var results: [Int: HealthProbe.Outcome] = [:]
            for await (index, outcome) in group { results[index] = outcome }
            return probes.indices.map { (probes[$0].service, results[$0]!) }
        }
        let failing = outcomes.filter { !$0.1.healthy }
        guard failing.isEmpty else {
            return HealthProbe.Outcome(healthy: false, message: failing.map { "\($0.0): \($0.1.message)" }.joined(separator: "; "))
        }
        return HealthProbe.Outcome(healthy: true, message: outcomes.map(\.0).joined(separator: ", ") + " answered 200")
    }
}
