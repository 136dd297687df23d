import ExposureCore
import ExposureTestSupport
import Foundation
import Testing

@testable import Submission
@testable import SubmissionCore

/// An observer timing uploads cannot tell fake ones from real ones: the two latency distributions pass a
/// two-sample Kolmogorov–Smirnov test. Real uploads go through the real verification service with fresh TANs.
@Suite(.serialized) struct FakeLatencyTests {
    static let count = 300
    static let warmUp = 150

    @Test(arguments: TestDatabase.all)
    func fakeUploadsTakeAsLongAsRealOnes(kind: TestDatabase) async throws {
        try await RealVerificationStack.run(kind) { stack in
            // The comparison takes up to `maxRounds` rounds of `count` real and `count` fake uploads.
            let perKind = LatencyComparison.maxRounds * Self.count
            let tans = try await stack.positiveTANs(Self.warmUp + perKind)
            // Every body and header is made before the clock runs: timing the test's own work would tell the
            // kinds apart. What the apps send: fourteen keys, real or not.
            let random = SystemRandomSource()
            let today = Payloads.today(Date())
            let bodies = (0..<(Self.warmUp + 2 * perKind)).map { _ in
                Payloads.bytes((1...14).map { day in
                    var key = Payloads.key(0, today: today, daysAgo: Int32(day))
                    key.keyData = Data(random.bytes(count: 16))
                    return key
                })
            }
            let fakeTANs = (0..<perKind).map { _ in Codes.uuidV4(using: random) }
            var sent = 0, fakes = 0
            func upload(tan: String, fake: Bool) async throws {
                defer { sent += 1 }
                let response = try await stack.submission.postRaw(
                    SubmissionHarness.path, bodies[sent],
                    headers: [("cwa-fake", fake ? "1" : "0"), ("cwa-authorization", tan)], contentType: "application/x-protobuf")
                try #require(response.status == 200, "\(response.text)")
            }
            var next = 0
            func real(_: Int) async throws {
                defer { next += 1 }
                try await upload(tan: tans[next], fake: false)
            }
            for index in 0..<Self.warmUp { try await real(index) }

            let outcome = try await LatencyComparison.indistinguishable("submission (\(kind))", count: Self.count, seed: 31, real: real) { _ in
                defer { fakes += 1 }
                try await upload(tan: fakeTANs[fakes], fake: true)
            }
            #expect(outcome.passed, "fake uploads are told apart: \(outcome.rounds)")
            let stored = try await stack.store.count()
            #expect(stored >= 14 * (Self.warmUp + Self.count))
        }
    }
}
