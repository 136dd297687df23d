import ExposureCore
import ExposureTestSupport
import Foundation
import Testing

@testable import Submission

/// Keys are written, then the TAN is spent, then the transaction commits: no TAN is lost to a database
/// failure, and no key survives a refused TAN or an unreachable verification service.
@Suite struct OrderOfWorkTests {
    @Test(arguments: TestDatabase.all)
    func aDatabaseFailureAnswers500LeavesNothingAndKeepsTheTAN(kind: TestDatabase) async throws {
        // Padding makes the service write two statements (real keys, then their companions); the injected
        // failure hits the second, so the first one's rows must be rolled back.
        try await SubmissionHarness.run(kind, environment: ["KEY_PADDING_MULTIPLIER": "2"]) { harness in
            try await FailureInjection.fail(.insert, on: "diagnosis_keys", onceTableHolds: 3, in: harness.database)
            let tan = harness.verification.issue()
            let body = Payloads.bytes((1...3).map { Payloads.key(UInt8($0), today: harness.today, daysAgo: Int32($0)) })
            let start = ContinuousClock.now
            let failed = try await harness.submit(body, tan: tan)
            #expect(failed.status == 500)
            #expect(failed.json["error"] as? String == "dependency_unavailable")
            #expect(ContinuousClock.now - start < .seconds(5))
            #expect(try await harness.storedCount() == 0)
            // Verification was never asked, so the app's retry with the same TAN succeeds.
            #expect(harness.verification.callCount == 0)

            try await FailureInjection.remove(from: "diagnosis_keys", in: harness.database)
            #expect(try await harness.submit(body, tan: tan).status == 200)
            #expect(try await harness.storedCount() == 6)
        }
    }

    @Test(arguments: TestDatabase.all)
    func verificationDownAnswers500Fast(kind: TestDatabase) async throws {
        let closedPort = ServiceProcess.freePort()
        try await SubmissionHarness.run(kind, environment: ["VERIFICATION_URL": "http://127.0.0.1:\(closedPort)"]) { harness in
            let start = ContinuousClock.now
            let response = try await harness.submit(Payloads.bytes([Payloads.key(1, today: harness.today)]), tan: harness.verification.issue())
            #expect(response.status == 500)
            #expect(response.json["error"] as? String == "dependency_unavailable")
            // Three attempts with 50 ms and 100 ms of backoff in between: well under a second on an idle machine; the
            // bound only proves that nothing waits for a timeout (tests run in parallel on two cores).
            #expect(ContinuousClock.now - start < .seconds(10))
            #expect(try await harness.storedCount() == 0)
        }
    }

    @Test(arguments: TestDatabase.all)
    func unavailableAnswersAreRetriedAFewTimes(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            let body = Payloads.bytes([Payloads.key(1, today: harness.today)])
            harness.verification.failNext([.serviceUnavailable])
            #expect(try await harness.submit(body, tan: harness.verification.issue()).status == 200)
            #expect(harness.verification.callCount == 2)

            harness.verification.failNext([.badGateway, .serviceUnavailable, .gatewayTimeout])
            let exhausted = try await harness.submit(Payloads.bytes([Payloads.key(2, today: harness.today)]), tan: harness.verification.issue())
            #expect(exhausted.status == 500)
            #expect(harness.verification.callCount == 5)

            // A 500 may have come after the TAN was spent: it is not repeated.
            harness.verification.failNext([.internalServerError])
            let broken = try await harness.submit(Payloads.bytes([Payloads.key(3, today: harness.today)]), tan: harness.verification.issue())
            #expect(broken.status == 500)
            #expect(harness.verification.callCount == 6)
            #expect(try await harness.store.all().map(\.key.keyData) == [Data(repeating: 1, count: 16)])
        }
    }

    @Test(arguments: TestDatabase.all)
    func aStalledVerificationTimesOut(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind, environment: ["VERIFICATION_TIMEOUT": "300ms"]) { harness in
            harness.verification.stall(for: .seconds(8))
            let start = ContinuousClock.now
            let response = try await harness.submit(Payloads.bytes([Payloads.key(1, today: harness.today)]), tan: harness.verification.issue())
            #expect(response.status == 500)
            // Answered long before the stall ends: the 300 ms timeout cut it short.
            #expect(ContinuousClock.now - start < .seconds(7))
            // The request may have reached verification, so it is not retried.
            #expect(harness.verification.callCount == 1)
            #expect(try await harness.storedCount() == 0)
        }
    }
}
