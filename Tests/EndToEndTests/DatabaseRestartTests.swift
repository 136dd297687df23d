import ExposureCore
import ExposureTestSupport
import Foundation
import Testing

/// PostgreSQL restarts under the running services while phones submit keys (a failover, a minor upgrade, an
/// operator's mistake). The services must come back by themselves and must never answer 200 for keys they lost.
@Suite(.serialized) struct DatabaseRestartTests {
    /// PostgreSQL only by nature. It runs whenever the PostgreSQL variants of the tests run (always under
    /// `scripts/test.sh` and CI, where `REQUIRE_POSTGRES=1`), on a server of its own: the shared one is never
    /// restarted. Missing PostgreSQL binaries are then a failure, not a skip.
    @Test(arguments: TestDatabase.all.filter { $0 == .postgres })
    func submissionsSurviveAPostgreSQLRestart(kind: TestDatabase) async throws {
        try await ThrowawayPostgres.withServer { server in
            var databases: [String: DatabaseURL] = [:]
            for name in ["testresult", "verification", "submission", "portal"] {
                databases[name] = try await server.createDatabase()
            }
            // The production deadline of one verification attempt, so that the test sees what operators would.
            try await EndToEndStack.run(databases: databases, overrides: ["submission-service": ["VERIFICATION_TIMEOUT": "3s"]]) { stack in
                let traffic = SubmissionTraffic(stack: stack)
                let audit = SubmissionAudit(stack: stack, traffic: traffic)
                let tans = try await traffic.mintTANs(110)
                let probes = Array(tans.suffix(10))

                // Every service's database is on this server: the restart hits all of them at once, with
                // submissions in flight (their transactions open while verification spends the TAN).
                let run = try await traffic.run(tans: Array(tans.prefix(100)), faultAfter: 12, afterFault: 12) {
                    try await server.restart(mode: .fast, downtime: .seconds(1))
                }
                let inFlight = run.attempts.filter { $0.sentAt <= run.fault.upperBound && $0.answeredAt >= run.fault.lowerBound }
                #expect(!inFlight.isEmpty, "no submission was in flight during the restart")
                #expect(run.attempts.contains { $0.answeredAt < run.fault.lowerBound }, "no submission before the restart")
                #expect(run.attempts.contains { $0.sentAt > run.fault.upperBound }, "no submission after the restart")

                audit.expectOnlySuccessOrServerError(run.attempts)
                try await audit.expectRecovery(probes: probes)
                let findings = try await audit.audit(run.attempts)
                print("PostgreSQL restart with \(run.attempts.count) submissions (\(inFlight.count) in flight): \(findings)")
                #expect(findings.accepted + findings.failed == run.attempts.count)
                #expect(findings.retriedAndAccepted + findings.lostTANs + findings.storedDespiteFailure == findings.failed)
            }
        }
    }
}
