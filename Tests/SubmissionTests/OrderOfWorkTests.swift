import ExposureCore
import ExposureTestSupport
import Foundation
import Testing

@testable import Submission
@testable import SubmissionCore

/// The order of a real upload's work (reserve the TAN, store the keys as pending, confirm, publish) against failures
/// of each step, with verification's stand-in: no TAN is lost and no key is published without its TAN spent.
/// `TwoPhaseRecoveryTests` does the same against the real verification service, with leases running out.
@Suite struct OrderOfWorkTests {
    @Test(arguments: TestDatabase.all)
    func aDatabaseFailureAnswers500LeavesNothingAndGivesTheTANBack(kind: TestDatabase) async throws {
        // Padding makes the service write two statements (real keys, then their companions); the injected
        // failure hits the second, so the first one's rows must be rolled back.
        try await SubmissionHarness.run(kind, environment: ["KEY_PADDING_MULTIPLIER": "2"]) { harness in
            try await FailureInjection.fail(.insert, on: "diagnosis_keys", onceTableHolds: 3, in: harness.database)
            let tan = harness.verification.issue()
            let body = Payloads.bytes((1...3).map { Payloads.key(UInt8($0), today: harness.today, daysAgo: Int32($0)) })
            // The failure is final (the test client's 30 s request timeout fails the test should the service wait
            // instead): what counts is what it leaves, below, not how fast it answers.
            let failed = try await harness.submit(body, tan: tan)
            Covers.status(500, of: "POST /version/v1/diagnosis-keys", failed, error: "dependency_unavailable")
            #expect(try await harness.storedCount() == 0)
            #expect(try await harness.store.pendingCount() == 0)
            // Reserved, then released at once: never confirmed, so the TAN is free for the app's retry, whatever keys
            // it carries.
            #expect(harness.verification.callCount("release") == 1 && harness.verification.callCount("confirm") == 0)
            #expect(!harness.verification.isSpent(tan) && !harness.verification.isReserved(tan))

            try await FailureInjection.remove(from: "diagnosis_keys", in: harness.database)
            let other = Payloads.bytes((4...5).map { Payloads.key(UInt8($0), today: harness.today, daysAgo: Int32($0)) })
            #expect(try await harness.submit(other, tan: tan).status == 200)
            #expect(try await harness.storedCount() == 4)
        }
    }

    @Test(arguments: TestDatabase.all)
    func verificationDownAnswers500Fast(kind: TestDatabase) async throws {
        let closedPort = ServiceProcess.freePort()
        // Verification's timeout is ten minutes, far past the test client's 30 s: an answer at all proves that the
        // refused connections (three attempts, 50 and 100 ms of backoff between them) were not waited out.
        let environment = ["VERIFICATION_URL": "http://127.0.0.1:\(closedPort)", "VERIFICATION_TIMEOUT": "600s"]
        try await SubmissionHarness.run(kind, environment: environment) { harness in
            let response = try await harness.submit(Payloads.bytes([Payloads.key(1, today: harness.today)]), tan: harness.verification.issue())
            #expect(response.status == 500)
            #expect(response.json["error"] as? String == "dependency_unavailable")
            #expect(try await harness.storedCount() == 0)
            #expect(try await harness.store.pendingCount() == 0)
        }
    }

    @Test(arguments: TestDatabase.all)
    func unavailableAnswersAreRetriedAFewTimes(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            let body = Payloads.bytes([Payloads.key(1, today: harness.today)])
            harness.verification.failNext([.serviceUnavailable])
            #expect(try await harness.submit(body, tan: harness.verification.issue()).status == 200)
            #expect(harness.verification.callCount == 3)

            harness.verification.failNext([.badGateway, .serviceUnavailable, .gatewayTimeout])
            let exhausted = try await harness.submit(Payloads.bytes([Payloads.key(2, today: harness.today)]), tan: harness.verification.issue())
            #expect(exhausted.status == 500)
            #expect(harness.verification.callCount == 6)

            // A 500 is final: it is not repeated.
            harness.verification.failNext([.internalServerError])
            let broken = try await harness.submit(Payloads.bytes([Payloads.key(3, today: harness.today)]), tan: harness.verification.issue())
            #expect(broken.status == 500)
            #expect(harness.verification.callCount == 7)
            #expect(try await harness.store.all().map(\.key.keyData) == [Data(repeating: 1, count: 16)])
            #expect(try await harness.store.pendingCount() == 0)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aStalledVerificationTimesOut(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind, environment: ["VERIFICATION_TIMEOUT": "300ms"]) { harness in
            // Verification holds the request until the test lets it go, after the answer: an answer at all is one
            // the 300 ms timeout cut short.
            let release = Flag()
            harness.verification.hold(until: release)
            let response = try await harness.submit(Payloads.bytes([Payloads.key(1, today: harness.today)]), tan: harness.verification.issue())
            #expect(response.status == 500)
            release.set()
            // The request may have reached verification, so it is not retried.
            #expect(harness.verification.callCount == 1)
            #expect(try await harness.storedCount() == 0)
        }
    }

    /// Verification fails the confirmation: the app is told 500, the keys wait as pending (not published), and the
    /// app's retry of the same upload finishes it.
    @Test(arguments: TestDatabase.all)
    func aFailedConfirmationLeavesTheKeysPendingForTheRetry(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            let tan = harness.verification.issue()
            let body = Payloads.bytes([Payloads.key(1, today: harness.today), Payloads.key(2, today: harness.today, daysAgo: 2)])
            harness.verification.failNext([.internalServerError], on: "confirm")
            let failed = try await harness.submit(body, tan: tan)
            #expect(failed.status == 500)
            #expect(failed.json["error"] as? String == "dependency_unavailable")
            #expect(try await harness.storedCount() == 0)
            #expect(try await harness.store.pendingCount() == 2)
            #expect(harness.verification.isReserved(tan) && !harness.verification.isSpent(tan))

            // Another upload with the TAN waits for the reservation: 503, nothing stored.
            let other = try await harness.submit(Payloads.bytes([Payloads.key(3, today: harness.today)]), tan: tan)
            #expect(other.status == 503)
            #expect(other.json["error"] as? String == "tan_in_use")
            #expect(try await harness.store.pendingCount() == 2)

            let retried = try await harness.submit(body, tan: tan)
            #expect(retried.status == 200)
            #expect(try await harness.storedCount() == 2)
            #expect(try await harness.store.pendingCount() == 0)
            #expect(harness.verification.isSpent(tan))
        }
    }

    /// The TAN is spent but the keys cannot be marked publishable (the database fails at that moment): the app is
    /// told 200, because the recovery job finds the reservation confirmed and publishes them.
    @Test(arguments: TestDatabase.all)
    func aFailureAfterTheConfirmationIsStillA200AndRecoveryPublishes(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            try await FailureInjection.fail(.update, on: "diagnosis_keys", in: harness.database)
            let tan = harness.verification.issue()
            let response = try await harness.submit(Payloads.bytes([Payloads.key(1, today: harness.today)]), tan: tan)
            #expect(response.status == 200)
            #expect(harness.verification.isSpent(tan))
            #expect(try await harness.storedCount() == 0)
            #expect(try await harness.store.pendingCount() == 1)

            try await FailureInjection.remove(from: "diagnosis_keys", in: harness.database)
            harness.clock.advance(by: 61)
            let report = try await harness.recovery().run()
            #expect(report == PendingUploadRecovery.Report(published: 1, discarded: 0, leased: 0))
            #expect(try await harness.storedCount() == 1)
            #expect(try await harness.store.pendingCount() == 0)
        }
    }
}
