import ExposureCore
import ExposureTestSupport
import Foundation
import Testing

@testable import Submission
@testable import SubmissionCore

/// Fake requests (`cwa-fake: 1`) look like a real success and do nothing.
@Suite struct FakeRequestTests {
    @Test(arguments: TestDatabase.all)
    func fakeRequestsStoreNothingAndSpendNoTAN(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            let body = Payloads.bytes([Payloads.key(1, today: harness.today)])
            // A fake carrying a TAN that verification would accept: the decoy must not send it.
            let tan = harness.verification.issue()
            let fake = try await harness.submit(body, tan: tan, fake: "1")
            // The keys are not even parsed: garbage is answered the same way.
            let garbage = try await harness.submit([0xFF, 0x00, 0x13], tan: Codes.uuidV4(using: SystemRandomSource()), fake: "1")
            // Each fake reserved a random TAN and confirmed a random key, as a real upload does with its own.
            #expect(harness.verification.callCount("reserve") == 2 && harness.verification.callCount("confirm") == 2)
            #expect(!harness.verification.isReserved(tan))
            #expect(try await harness.storedCount() == 0)

            let real = try await harness.submit(body, tan: tan)
            #expect(real.status == 200)
            #expect(try await harness.storedCount() > 0)
            for response in [fake, garbage] {
                #expect(response.status == real.status)
                #expect(response.body == real.body)
                #expect(Self.headerNames(response) == Self.headerNames(real))
                #expect(response.header("content-length") == real.header("content-length"))
                #expect(response.header("content-type") == real.header("content-type"))
            }
        }
    }

    @Test(arguments: TestDatabase.all)
    func fakesAnswerAlikeWhileVerificationFails(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { harness in
            let body = Payloads.bytes([Payloads.key(1, today: harness.today)])
            let healthy = try await harness.submit(body, tan: Codes.uuidV4(using: SystemRandomSource()), fake: "1")
            // The decoy's failure is not the fake's: it still looks like a real success.
            harness.verification.failNext([.internalServerError, .internalServerError])
            let failing = try await harness.submit(body, tan: Codes.uuidV4(using: SystemRandomSource()), fake: "1")
            #expect(harness.verification.callCount == 4)
            #expect(failing.status == 200)
            #expect(failing.body == healthy.body)
            #expect(failing.header("content-length") == healthy.header("content-length"))
            #expect(try await harness.storedCount() == 0)
        }
    }

    @Test func fakeRequestsTakeAsLongAsRealOnes() async throws {
        // A known mean stands in for what real requests measured; delays follow an exponential law around it.
        let latency = LatencyMatcher(initialMean: 0.05, random: SystemRandomSource())
        try await SubmissionHarness.run(.sqlite, latency: latency) { harness in
            var total: Duration = .zero
            let count = 20
            for _ in 0..<count {
                let start = ContinuousClock.now
                let response = try await harness.submit([], tan: Codes.uuidV4(using: SystemRandomSource()), fake: "1")
                #expect(response.status == 200)
                total += ContinuousClock.now - start
            }
            let mean = total.seconds / Double(count)
            // Mean 50 ms, standard error about 11 ms: fakes do wait. No upper bound in wall time (a busy machine
            // stretches any wait); that the draw is capped, at 20 times the mean, is
            // PrivacyTests.beforeAnyRealRequestAnswersWaitAroundTheInitialMean.
            #expect(mean > 0.02, "mean fake latency \(mean) s")

            // Real successes feed the average that fakes draw from.
            _ = try await harness.submit(Payloads.bytes([Payloads.key(1, today: harness.today)]), tan: harness.verification.issue())
            #expect(latency.mean(endpoint: SubmissionAPI.endpoint) != 0.05)
        }
    }

    static func headerNames(_ response: TestResponse) -> [String] {
        response.headers.map { $0.name.lowercased() }.sorted()
    }
}
