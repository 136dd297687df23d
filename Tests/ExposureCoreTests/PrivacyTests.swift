@testable import ExposureCore
import ExposureTestSupport
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

    /// Padding draws its random bytes in bulk and drops those that would bias the alphabet: still exactly the
    /// asked length, from the whole alphabet and nothing else, with the system source as with a seeded one.
    @Test func paddingUsesEveryCharacterOfItsAlphabetAndNothingElse() {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        for random in [SystemRandomSource(), SeededRandomSource(seed: 3)] as [any RandomSource] {
            let padding = ResponsePadding.padding(unpaddedSize: 0, targetSize: 5_000, random: random)
            #expect(padding.count == 5_000)
            #expect(Set(padding) == alphabet)
            #expect(ResponsePadding.padding(unpaddedSize: 9, targetSize: 8, random: random).isEmpty)
        }
        #expect([0, 1, 7, 8, 9, 33].map { SystemRandomSource().bytes(count: $0).count } == [0, 1, 7, 8, 9, 33])
    }

    @Test func fakeHeaderMustBeZeroOrOne() throws {
        #expect(try FakeRequestHeader.isFake("1"))
        #expect(try !FakeRequestHeader.isFake("0"))
        #expect(throws: APIError.self) { try FakeRequestHeader.isFake(nil) }
        #expect(throws: APIError.self) { try FakeRequestHeader.isFake("true") }
    }

    @Test func answersAreReleasedJustAboveEachEndpointsRecentRealDurations() {
        let matcher = LatencyMatcher(initialMean: 0.01, windowSize: 4, random: SeededRandomSource(seed: 5))
        #expect(matcher.mean(endpoint: "a") == 0.01)
        for seconds in [0.3, 0.1, 0.2] { matcher.record(endpoint: "a", seconds: seconds) }
        matcher.record(endpoint: "b", seconds: 0.002)
        #expect(abs(matcher.mean(endpoint: "a") - 0.2) < 1e-9)
        // The 97th percentile of the window, plus up to `releaseSpread` (50 %) of it.
        #expect(LatencyMatcher.releaseSpread == 0.5)
        let delays = (0..<3_000).map { _ in matcher.releaseDelay(endpoint: "a") }
        #expect(delays.allSatisfy { $0 >= 0.3 && $0 <= 0.45 })
        #expect(delays.min()! < 0.305 && delays.max()! > 0.445)
        // Short durations still spread over `minimumSpread` (4 ms): several release ticks.
        let short = (0..<1_000).map { _ in matcher.releaseDelay(endpoint: "b") }
        #expect(short.allSatisfy { $0 >= 0.002 && $0 <= 0.006 })
        #expect(short.min()! < 0.0025 && short.max()! > 0.0055)
        // The window keeps the most recent durations only: the 0.3 s is forgotten after four newer ones.
        for seconds in [0.01, 0.02, 0.03, 0.04] { matcher.record(endpoint: "a", seconds: seconds) }
        #expect((0..<1_000).map { _ in matcher.releaseDelay(endpoint: "a") }.allSatisfy { $0 >= 0.04 && $0 <= 0.06 })
    }

    @Test func recentDurationsGiveTheQuantilesOfTheLastSamplesAsSortingThemWould() {
        let random = SeededRandomSource(seed: 11)
        var window = RecentDurations(capacity: 16)
        #expect(window.quantile(0.97) == nil && window.mean == nil && window.sample(random) == nil)
        var arrived: [Double] = []
        // Many repeated values, so that removing the oldest must find an equal one among several.
        for _ in 0..<2_000 {
            let value = Double(Int(random.unitInterval() * 8)) / 100
            window.append(value)
            arrived.append(value)
            let recent = arrived.suffix(16).sorted()
            for q in [0.0, 0.5, 0.97, 1.0] {
                #expect(window.quantile(q) == recent[min(recent.count - 1, Int(q * Double(recent.count)))])
            }
            #expect(window.samples.sorted() == recent)
        }
        #expect(abs(window.mean! - arrived.suffix(16).reduce(0, +) / 16) < 1e-12)
    }

    /// On a hand-driven tick: an answer waits from the start of its request until its release time (50 to 75 ms
    /// here: the one recorded duration plus up to half of it), and one whose work already took longer than that
    /// leaves on the very next tick. Each tick runs when the test says, so "at once" is "on the first tick", not a
    /// wall-clock bound.
    @Test func releaseWaitsFromTheStartOfTheRequest() async {
        let timers = HandDrivenTimers()
        let ticker = ReleaseTicker(timers: timers)
        let matcher = LatencyMatcher(windowSize: 4, random: SeededRandomSource(seed: 6), ticker: ticker)
        matcher.record(endpoint: "a", seconds: 0.05)

        let onTime = Task { await matcher.release(endpoint: "a", since: timers.origin) }
        while ticker.waiting == 0 { await Task.yield() }
        timers.runTick(at: 1)
        timers.runTick(at: 49.9)
        #expect(ticker.waiting == 1, "still waiting 49.9 ms after the request started")
        timers.runTick(at: 75.1)
        await onTime.value
        #expect(ticker.waiting == 0)

        // Work that already took longer (it started a second before the clock's origin) leaves on the next tick.
        let late = Task { await matcher.release(endpoint: "a", since: timers.origin - .seconds(1)) }
        while ticker.waiting == 0 { await Task.yield() }
        timers.runTick(at: 76)
        await late.value
        #expect(ticker.waiting == 0)
    }

    @Test func beforeAnyRealRequestAnswersWaitAroundTheInitialMean() {
        let matcher = LatencyMatcher(initialMean: 0.2, random: SeededRandomSource(seed: 8))
        let delays = (0..<20_000).map { _ in matcher.releaseDelay(endpoint: "new") }
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
        #expect(!bucket.tryTake())
    }

    @Test func kolmogorovSmirnovMatchesReferenceValues() {
        // Tail values of the Kolmogorov distribution and a two-sample result, as computed by SciPy 1.17
        // (`kstwobign.sf`, `ks_2samp(..., method="asymp")`).
        for (lambda, tail) in [(0.5, 0.96395), (1.0, 0.27000), (1.36, 0.049486), (1.63, 0.0098464)] {
            #expect(abs(KolmogorovSmirnov.kolmogorovTail(lambda) - tail) < 1e-4, "λ = \(lambda)")
        }
        let first = Array(repeating: (1...10).map(Double.init), count: 3).flatMap { $0 }
        let second = Array(repeating: (4...13).map(Double.init), count: 3).flatMap { $0 }
        let result = KolmogorovSmirnov(first, second)
        #expect(abs(result.statistic - 0.3) < 1e-12)
        #expect(abs(result.pValue - 0.108) < 0.005)
        // Identical samples cannot be told apart; disjoint ones can.
        #expect(KolmogorovSmirnov(first, first).pValue == 1)
        let disjoint = KolmogorovSmirnov((0..<300).map(Double.init), (300..<600).map(Double.init))
        #expect(disjoint.statistic == 1 && disjoint.pValue < 1e-12)
    }
}
