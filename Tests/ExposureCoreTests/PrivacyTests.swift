import ExposureCore
import Foundation
import Testing

@Suite struct PrivacyTests {
    struct Answer: Encodable {
        let token: String
        let responsePadding: String
    }

    @Test func paddingMakesResponsesTheSameSize() throws {
        let random = SeededRandomSource(seed: 9)
        let encoder = ResponsePadding.measuringEncoder()
        let sizes = try ["a", "abcdef", String(repeating: "z", count: 40)].map { token in
            try encoder.encode(ResponsePadding.padded(targetSize: 120, random: random) { Answer(token: token, responsePadding: $0) }).count
        }
        #expect(sizes == [120, 120, 120])
    }

    @Test func fakeHeaderMustBeZeroOrOne() throws {
        #expect(try FakeRequestHeader.isFake("1"))
        #expect(try !FakeRequestHeader.isFake("0"))
        #expect(throws: APIError.self) { try FakeRequestHeader.isFake(nil) }
        #expect(throws: APIError.self) { try FakeRequestHeader.isFake("true") }
    }

    @Test func latencyMatcherTracksEachEndpointSeparately() {
        let matcher = LatencyMatcher(initialMean: 0.01, smoothing: 0.5, random: SeededRandomSource(seed: 5))
        #expect(matcher.mean(endpoint: "a") == 0.01)
        matcher.record(endpoint: "a", seconds: 0.2)
        matcher.record(endpoint: "a", seconds: 0.2)
        matcher.record(endpoint: "b", seconds: 0.002)
        #expect(abs(matcher.mean(endpoint: "a") - 0.2) < 1e-9)
        #expect(abs(matcher.mean(endpoint: "b") - 0.002) < 1e-9)
        // Delays follow an exponential law with the endpoint's mean.
        let delays = (0..<20_000).map { _ in matcher.fakeDelay(endpoint: "a") }
        let mean = delays.reduce(0, +) / Double(delays.count)
        #expect(abs(mean - 0.2) < 0.02)
        #expect(delays.allSatisfy { $0 >= 0 && $0 <= 4.0 })
    }

    @Test func tokenBucketRefillsWithTheInjectedClock() {
        let clock = ManualClock()
        let bucket = TokenBucket(capacity: 3, refillPerSecond: 1.0 / 60, clock: clock)
        #expect(bucket.tryTake() && bucket.tryTake() && bucket.tryTake())
        #expect(!bucket.tryTake())
        clock.advance(by: 59)
        #expect(!bucket.tryTake())
        clock.advance(by: 1)
        #expect(bucket.tryTake())
        clock.advance(by: 3600)
        #expect(bucket.tryTake() && bucket.tryTake() && bucket.tryTake())
        #expect(!bucket.hasToken())
    }
}
