import ExposureCore
import ExposureTestSupport
import Foundation
import Testing

/// The submission service dies (kill -9) while phones upload keys, and comes back on the same data: wherever each
/// upload was (reserving its TAN, storing its keys, confirming, publishing), the recovery job settles it, and every
/// phone that was not told 200 either has its keys published or can upload again with other keys once the lease has
/// run out. Before the two-phase redemption this run lost about three TANs in forty.
@Suite(.serialized) struct SubmissionCrashTests {
    @Test(arguments: TestDatabase.all)
    func uploadsSurviveSubmissionBeingKilled(kind: TestDatabase) async throws {
        // A short lease and a recovery job every second, so that the run settles in seconds instead of minutes.
        let overrides = [
            "verification-service": ["TAN_RESERVATION_LEASE": "10s"],
            "submission-service": ["RECOVERY_INTERVAL": "1s"],
        ]
        try await EndToEndStack.run(on: kind, overrides: overrides) { stack in
            let traffic = SubmissionTraffic(stack: stack)
            let audit = SubmissionAudit(stack: stack, traffic: traffic)
            let tans = try await traffic.mintTANs(80)
            let run = try await traffic.run(tans: tans, concurrency: 8, pacing: .milliseconds(20), faultAfter: 16, afterFault: 16) {
                stack.kill("submission-service")
                try await Task.sleep(for: .milliseconds(500))
                try await stack.start("submission-service")
            }
            let inFlight = run.attempts.filter { $0.sentAt <= run.fault.upperBound && $0.answeredAt >= run.fault.lowerBound }
            #expect(!inFlight.isEmpty, "no upload was in flight when submission died")
            #expect(run.attempts.contains { $0.sentAt > run.fault.upperBound }, "no upload after submission was back")
            let findings = try await audit.auditWithChangedKeys(run.attempts, settleWithin: .seconds(40), retryDeadline: .seconds(60))
            print("submission killed (\(kind)) with \(run.attempts.count) uploads (\(inFlight.count) in flight): \(findings)")
            #expect(findings.lostTANs == 0)
            #expect(findings.accepted + findings.failed == run.attempts.count)
            #expect(findings.retriedAndAccepted + findings.storedDespiteFailure == findings.failed)
        }
    }
}
