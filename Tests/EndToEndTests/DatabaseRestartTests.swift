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
            // The production deadline of one verification attempt, so that the test sees what operators would; a
            // shorter database deadline than the default 30 s, so that an operation stuck on a connection the
            // restart closed fails well within the test's patience. Two attempts, as twice the longest call to
            // verification must stay below the database deadline.
            let deadline = ["DATABASE_TIMEOUT": "15s"]
            let overrides = [
                // An upload answered 200 whose publishing step died with the server is published by the next
                // recovery round (`PendingUploadRecovery`): rounds every 5 s, so that one runs within the audit.
                "submission-service": deadline.merging(["VERIFICATION_TIMEOUT": "3s", "VERIFICATION_ATTEMPTS": "2", "RECOVERY_INTERVAL": "5s"]) { $1 },
                "verification-service": deadline, "testresult-service": deadline, "portal-service": deadline,
            ]
            try await EndToEndStack.run(databases: databases, overrides: overrides) { stack in
                let traffic = SubmissionTraffic(stack: stack)
                let audit = SubmissionAudit(stack: stack, traffic: traffic)
                let tans = try await traffic.mintTANs(140)
                let probes = Array(tans.suffix(12))

                // Every service's database is on this server: each restart hits all of them at once. Traffic is
                // dense (8 at a time, 20 ms apart) so that transactions are open when the server goes away: a
                // submission holds its transaction while verification spends the TAN. First a clean restart (open
                // sessions are ended, their transactions rolled back), then, with traffic flowing again, a crash
                // (`immediate`: the server recovers from its log on start).
                let run = try await traffic.run(tans: Array(tans.prefix(128)), concurrency: 8, pacing: .milliseconds(20), faultAfter: 16, afterFault: 16) {
                    try await server.restart(mode: .fast, downtime: .seconds(1))
                    try await Task.sleep(for: .milliseconds(300))
                    try await server.restart(mode: .immediate, downtime: .seconds(1))
                }
                let inFlight = run.attempts.filter { $0.sentAt <= run.fault.upperBound && $0.answeredAt >= run.fault.lowerBound }
                #expect(!inFlight.isEmpty, "no submission was in flight during the restart")
                #expect(run.attempts.contains { $0.answeredAt < run.fault.lowerBound }, "no submission before the restart")
                #expect(run.attempts.contains { $0.sentAt > run.fault.upperBound }, "no submission after the restart")

                audit.expectOnlySuccessOrServerError(run.attempts)
                try await audit.expectRecovery(probes: probes)
                let findings = try await audit.audit(run.attempts)
                print("PostgreSQL restarted twice with \(run.attempts.count) submissions (\(inFlight.count) in flight): \(findings)")
                #expect(findings.accepted + findings.failed == run.attempts.count)
                #expect(findings.retriedAndAccepted == findings.failed)
            }
        }
    }
}
