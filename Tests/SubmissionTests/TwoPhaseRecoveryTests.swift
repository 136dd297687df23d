import ExposureCore
import ExposureProtocol
import ExposureTestSupport
import Foundation
@testable import SubmissionDomain
import Testing
@testable import Submission
@testable import SubmissionCore
@testable import Verification

/// The two-phase redemption against the real verification service, on both databases, with an upload stopped at each
/// point between its phases (as a killed process leaves it: the steps it made are made with the service's own code,
/// then nothing more), leases run out on the stack's clock, and the recovery job as every replica runs it. In every
/// case the upload's keys are published exactly once with its TAN spent, or the TAN works again and nothing of the
/// stopped upload is published; never both lost. `SubmissionCrashTests` kills real processes.
@Suite struct TwoPhaseRecoveryTests {
    /// An upload of its own keys: `first` is the first key's byte, three keys in all.
    struct Upload {
        let tan: String
        let keys: [TemporaryExposureKey]
        var body: [UInt8] { Payloads.bytes(keys) }
        var keyData: Set<Data> { Set(keys.map(\.keyData)) }

        init(tan: String, first: UInt8) {
            self.tan = tan
            let today = Payloads.today(Date())
            keys = (0..<3).map { Payloads.key(first + UInt8($0), today: today, daysAgo: Int32($0 + 1)) }
        }
    }

    /// What the stopped upload had done, made with the service's own types: the reservation key it derived, the
    /// reservation, the pending keys, the confirmation.
    enum StoppedAfter { case reserving, storing, confirming }

    static func stop(_ upload: Upload, after step: StoppedAfter, in stack: RealVerificationStack) async throws {
        let secret = try await RedemptionSecretStore(database: stack.store.database).secret(random: SystemRandomSource())
        let validator = SubmissionValidator(rules: try SubmissionConfiguration(TestServices.settings([:])).rules)
        let keys = try validator.validate(try validator.parse(upload.body), now: stack.clock.now()).keys
        let reservation = RedemptionKeyDeriver(secret: secret).key(for: upload.tan, keys: keys)
        let reservations = Self.reservations(stack)
        #expect(try await reservations.reserve(tan: upload.tan, key: reservation) == .reserved(TANOrigin(source: .guid)))
        if step == .reserving { return }
        _ = try await stack.store.storePending(keys, padding: [], reservation: reservation, submittedAt: stack.clock.now())
        if step == .storing { return }
        #expect(try await reservations.confirm(key: reservation) == TANOrigin(source: .guid))
    }

    static func reservations(_ stack: RealVerificationStack) -> TANReservations {
        TANReservations(
            baseURL: URL(string: "http://127.0.0.1:\(stack.verificationInternal.port)")!, policy: DownstreamPolicy(),
            serviceToken: TestServiceTokens.submission, http: .forTests, logger: TestLogger.quiet
        )
    }

    static func recovery(_ stack: RealVerificationStack) -> PendingUploadRecovery {
        PendingUploadRecovery.standalone(
            store: stack.store, verificationURL: URL(string: "http://127.0.0.1:\(stack.verificationInternal.port)")!,
            after: .seconds(60), clock: stack.clock
        )
    }

    static func send(_ upload: Upload, to stack: RealVerificationStack) async throws -> TestResponse {
        try await stack.submission.postRaw(
            SubmissionHarness.path, upload.body, headers: [("cwa-fake", "0"), ("cwa-authorization", upload.tan)], contentType: "application/x-protobuf"
        )
    }

    static func published(_ stack: RealVerificationStack) async throws -> [Data] {
        try await stack.store.all().map(\.key.keyData)
    }

    /// Stopped after reserving: nothing stored. The same upload again goes on at once (it is the same reservation);
    /// other keys wait for the lease, then succeed.
    @Test(arguments: TestDatabase.all)
    func stoppedAfterReservingTheTANWorksAgainAfterTheLease(kind: TestDatabase) async throws {
        try await RealVerificationStack.run(kind) { stack in
            let tans = try await stack.positiveTANs(2)
            let stopped = Upload(tan: tans[0], first: 10), changed = Upload(tan: tans[0], first: 20)
            try await Self.stop(stopped, after: .reserving, in: stack)
            let waiting = try await Self.send(changed, to: stack)
            Covers.status(503, of: "POST /version/v1/diagnosis-keys", waiting, error: "tan_in_use")
            stack.clock.advance(by: 181)
            #expect(try await Self.send(changed, to: stack).status == 200)
            #expect(Set(try await Self.published(stack)) == changed.keyData)

            let again = Upload(tan: tans[1], first: 30)
            try await Self.stop(again, after: .reserving, in: stack)
            #expect(try await Self.send(again, to: stack).status == 200)
            #expect(try await Self.published(stack).count == 6)
        }
    }

    /// Stopped after storing: the keys are pending, never published on their own. After the lease the recovery job
    /// deletes them and the TAN takes other keys; before it, the same upload again finishes the first.
    @Test(arguments: TestDatabase.all)
    func stoppedAfterStoringIsDeletedAfterTheLeaseOrFinishedByTheRetry(kind: TestDatabase) async throws {
        try await RealVerificationStack.run(kind) { stack in
            let tans = try await stack.positiveTANs(2)
            let stopped = Upload(tan: tans[0], first: 10), changed = Upload(tan: tans[0], first: 20)
            try await Self.stop(stopped, after: .storing, in: stack)
            #expect(try await stack.store.pendingCount() == 3)
            stack.clock.advance(by: 61)
            // Pending for a minute, but its lease still runs: the job leaves it.
            #expect(try await Self.recovery(stack).run() == .init(published: 0, discarded: 0, leased: 1))
            stack.clock.advance(by: 120)
            #expect(try await Self.recovery(stack).run() == .init(published: 0, discarded: 1, leased: 0))
            #expect(try await stack.store.pendingCount() == 0)
            #expect(try await Self.send(changed, to: stack).status == 200)
            #expect(Set(try await Self.published(stack)) == changed.keyData)

            let retried = Upload(tan: tans[1], first: 40)
            try await Self.stop(retried, after: .storing, in: stack)
            #expect(try await Self.send(retried, to: stack).status == 200)
            #expect(try await stack.store.pendingCount() == 0)
            #expect(try await Self.published(stack).count == 6)
        }
    }

    /// Stopped after confirming: the TAN is spent, so the recovery job publishes the keys; the same upload again is
    /// a 200 that stores nothing twice, other keys are refused.
    @Test(arguments: TestDatabase.all)
    func stoppedAfterConfirmingIsPublishedByRecovery(kind: TestDatabase) async throws {
        try await RealVerificationStack.run(kind) { stack in
            let tan = try #require(try await stack.positiveTANs(1).first)
            let stopped = Upload(tan: tan, first: 10)
            try await Self.stop(stopped, after: .confirming, in: stack)
            #expect(try await Self.published(stack).isEmpty)
            stack.clock.advance(by: 61)
            #expect(try await Self.recovery(stack).run() == .init(published: 1, discarded: 0, leased: 0))
            #expect(Set(try await Self.published(stack)) == stopped.keyData)
            #expect(try await Self.send(stopped, to: stack).status == 200)
            #expect(try await Self.send(Upload(tan: tan, first: 20), to: stack).status == 403)
            #expect(try await Self.published(stack).count == 3)
            // Two replicas settling at once do not publish twice or fail.
            #expect(try await Self.recovery(stack).run() == .init())
        }
    }

    /// Verification's answers to the confirmation never arrive (a proxy drops every attempt after passing it on): the
    /// app is told 500, and the keys it uploaded are published by the recovery job, since the TAN was spent.
    @Test(arguments: TestDatabase.all)
    func lostConfirmationsAreSettledByRecovery(kind: TestDatabase) async throws {
        let proxy = AnswerDroppingProxy(
            paths: ["/version/v1/tans/confirm"], passing: ["/version/v1/tans/reserve", "/version/v1/tans/release"], dropping: 3
        )
        try await RealVerificationStack.run(kind, proxy: proxy) { stack in
            let tan = try #require(try await stack.positiveTANs(1).first)
            let upload = Upload(tan: tan, first: 10)
            let failed = try await Self.send(upload, to: stack)
            #expect(failed.status == 500)
            #expect(failed.json["error"] as? String == "dependency_unavailable")
            #expect(try await stack.store.pendingCount() == 3)
            stack.clock.advance(by: 61)
            #expect(try await Self.recovery(stack).run() == .init(published: 1, discarded: 0, leased: 0))
            #expect(Set(try await Self.published(stack)) == upload.keyData)
            #expect(try await Self.send(upload, to: stack).status == 200)
            #expect(try await Self.published(stack).count == 3)
        }
    }

    /// The submission database refuses the keys: 500, the TAN is released at once, and the app's retry with other
    /// keys succeeds without waiting for the lease.
    @Test(arguments: TestDatabase.all)
    func aRefusedWriteGivesTheTANBackAtOnce(kind: TestDatabase) async throws {
        try await RealVerificationStack.run(kind) { stack in
            let tan = try #require(try await stack.positiveTANs(1).first)
            try await FailureInjection.fail(.insert, on: "diagnosis_keys", in: stack.store.database)
            let failed = try await Self.send(Upload(tan: tan, first: 10), to: stack)
            #expect(failed.status == 500)
            try await FailureInjection.remove(from: "diagnosis_keys", in: stack.store.database)
            let changed = Upload(tan: tan, first: 20)
            #expect(try await Self.send(changed, to: stack).status == 200)
            #expect(Set(try await Self.published(stack)) == changed.keyData)
        }
    }

    /// 50 uploads of one TAN, each with keys of its own, over 50 connections at once: one is published, the others
    /// are told to wait (503) or that the TAN is spent (403), and nothing of theirs is stored.
    @Test(arguments: TestDatabase.all)
    func fiftyUploadsRacingWithOneTANPublishOneSet(kind: TestDatabase) async throws {
        try await RealVerificationStack.run(kind) { stack in
            let tan = try #require(try await stack.positiveTANs(1).first)
            let uploads = (0..<50).map { Upload(tan: tan, first: UInt8($0 * 4 + 1)) }
            let statuses = try await withManyConnections(50) { http in
                let submission = stack.submission.using(http)
                return try await concurrently(over: uploads) { upload in
                    try await submission.postRaw(
                        SubmissionHarness.path, upload.body, headers: [("cwa-fake", "0"), ("cwa-authorization", upload.tan)],
                        contentType: "application/x-protobuf"
                    ).status
                }
            }
            #expect(statuses.count(where: { $0 == 200 }) == 1, "\(statuses)")
            #expect(statuses.allSatisfy { [200, 403, 503].contains($0) }, "\(statuses)")
            let winner = try #require(statuses.firstIndex(of: 200))
            #expect(Set(try await Self.published(stack)) == uploads[winner].keyData)
            #expect(try await stack.store.pendingCount() == 0)
        }
    }
}
