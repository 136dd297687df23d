import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification

/// An observer timing the app-facing endpoints cannot tell fake requests from real ones: for each endpoint the
/// two latency distributions pass a two-sample Kolmogorov–Smirnov test.
@Suite(.serialized) struct FakeLatencyTests {
    static let count = 300
    static let warmUp = 150

    @Test(arguments: TestDatabase.all)
    func fakeRequestsTakeAsLongAsRealOnesAtEveryEndpoint(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            // Each comparison takes up to `maxRounds` rounds of `count` real and `count` fake requests.
            let perKind = LatencyComparison.maxRounds * Self.count
            let needed = Self.warmUp + perKind
            // Every input is made before the clock runs: timing the test's own work would tell the kinds apart.
            let fakeGUIDs = (0..<perKind).map { _ in VerificationHarness.hashedGUID() }
            let fakeTokens = (0..<perKind).map { _ in Codes.uuidV4(using: SystemRandomSource()) }
            let guids = (0..<needed).map { _ in VerificationHarness.hashedGUID() }
            for batch in stride(from: 0, to: needed, by: 1_000) {
                let results = guids[batch..<min(batch + 1_000, needed)].map { ["id": $0, "result": 2] as [String: Any] }
                let upload = try await h.lab.postJSON("/api/v1/lab/results", ["testResults": results], headers: [("Authorization", "Bearer \(h.labKey)")])
                try #require(upload.status == 204)
            }
            func expect(_ response: TestResponse, _ status: Int) throws {
                try #require(response.status == status, "\(response.text)")
            }

            // Registration: each real request registers a GUID of a positive result, for the TANs below.
            var tokens: [String] = []
            func register(_: Int) async throws {
                let response = try await h.register(guid: guids[tokens.count])
                try expect(response, 201)
                tokens.append(try #require(response.json["registrationToken"] as? String))
            }
            for index in 0..<Self.warmUp { try await register(index) }
            var fakes = 0
            func fakeRegistration(_: Int) async throws {
                defer { fakes += 1 }
                let response = try await h.register(guid: fakeGUIDs[fakes], fake: "1")
                try expect(response, 201)
                // The observer reads every answer alike: a real one is parsed for its token, so a fake one is too.
                // Parsing only the real ones made them 50–200 µs slower, which a fast machine's narrow timing showed.
                _ = try #require(response.json["registrationToken"] as? String)
            }
            let registration = try await LatencyComparison.indistinguishable(
                "registrationToken (\(kind))", count: Self.count, seed: 11, real: register, fake: fakeRegistration)
            while tokens.count < needed { try await register(tokens.count) }

            // Polling: the same phone asks again and again, as apps do while a test is pending.
            for _ in 0..<Self.warmUp { try expect(try await h.testResult(tokens[0]), 200) }
            fakes = 0
            let polling = try await LatencyComparison.indistinguishable("testresult (\(kind))", count: Self.count, seed: 12, real: { _ in
                try expect(try await h.testResult(tokens[0]), 200)
            }, fake: { _ in
                defer { fakes += 1 }
                try expect(try await h.testResult(fakeTokens[fakes], fake: "1"), 200)
            })

            // TANs: one per registration token.
            var used = 0
            func tan(_: Int) async throws {
                defer { used += 1 }
                try expect(try await h.tan(tokens[used]), 201)
            }
            for index in 0..<Self.warmUp { try await tan(index) }
            fakes = 0
            let tans = try await LatencyComparison.indistinguishable("tan (\(kind))", count: Self.count, seed: 13, real: tan) { _ in
                defer { fakes += 1 }
                try expect(try await h.tan(fakeTokens[fakes], fake: "1"), 201)
            }

            #expect(registration.passed, "fake registrations are told apart: \(registration.rounds)")
            #expect(polling.passed, "fake polls are told apart: \(polling.rounds)")
            #expect(tans.passed, "fake TAN requests are told apart: \(tans.rounds)")
        }
    }
}
