import ExposureCore
import ExposureTestSupport
import Foundation
import Testing

/// The verification service dies (kill -9) while phones submit keys: every submission in flight and every one
/// sent before it is back must be answered 5xx, none 200 without its keys, and each TAN must still work after
/// verification is back (except in the one window the design cannot close, which the audit names).
@Suite(.serialized) struct VerificationCrashTests {
    @Test(arguments: TestDatabase.all)
    func submissionsSurviveVerificationBeingKilled(kind: TestDatabase) async throws {
        try await EndToEndStack.run(on: kind, overrides: ["submission-service": ["VERIFICATION_TIMEOUT": "3s"]]) { stack in
            let traffic = SubmissionTraffic(stack: stack)
            let audit = SubmissionAudit(stack: stack, traffic: traffic)
            let tans = try await traffic.mintTANs(110)
            let probes = Array(tans.suffix(10))

            let run = try await traffic.run(tans: Array(tans.prefix(100)), faultAfter: 12, afterFault: 12) {
                stack.kill("verification-service")
                // Down long enough that submissions meet the dead service, not only the dying one.
                try await Task.sleep(for: .milliseconds(500))
                try await stack.start("verification-service")
            }
            let inFlight = run.attempts.filter { $0.sentAt <= run.fault.upperBound && $0.answeredAt >= run.fault.lowerBound }
            #expect(!inFlight.isEmpty, "no submission was in flight while verification was down")
            #expect(run.attempts.contains { $0.sentAt > run.fault.upperBound }, "no submission after verification was back")

            audit.expectOnlySuccessOrServerError(run.attempts)
            // A submission that met the dead service is a clear 500 naming the unavailable dependency.
            for attempt in run.attempts where attempt.isServerError {
                #expect(attempt.status == 500 && attempt.errorCode == "dependency_unavailable", "\(attempt.status ?? 0) \(attempt.errorCode ?? "")")
            }
            #expect(run.attempts.contains { $0.isServerError }, "no submission met the dead verification service")
            try await audit.expectRecovery(probes: probes)
            let findings = try await audit.audit(run.attempts)
            print("verification killed (\(kind)) with \(run.attempts.count) submissions (\(inFlight.count) in flight): \(findings)")
            #expect(findings.accepted + findings.failed == run.attempts.count)
            #expect(findings.retriedAndAccepted == findings.failed)
        }
    }
}
