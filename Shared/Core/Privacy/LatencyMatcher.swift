import Foundation

/// Makes fake requests take as long as real ones, per endpoint, as seen from the network.
///
/// Matching only the time spent in the handler is not enough: a real request's last step wakes the threads that
/// write its answer, a fake's does not, and on an idle server the difference (a fraction of a millisecond) is
/// visible to a two-sample Kolmogorov–Smirnov test after a few hundred requests. So real and fake answers leave
/// the same way: each waits, from the moment its handler started, until a release time drawn from one
/// distribution, above the recent real durations: their 97th percentile, plus up to 50 % of it (at least 4 ms)
/// at random.
/// Real work that took longer than its draw leaves on the next tick; that happens to about 3 % of real requests.
/// The spread is wide on purpose: what remains different between the two kinds (a tenth of a millisecond of
/// wake-up, or real work overrunning while the load rises) is then small against it, and a two-sample test over
/// a few hundred answers no longer sees it. A spread of 10 % did not hide it.
///
/// The price is latency: a real answer waits for 1 to 1.5 times the slowest few percent of recent real work.
/// Phones do not notice a few milliseconds; an observer can no longer time the work. (The reference implementation made
/// only fakes wait, an exponentially distributed delay around one moving average shared by every endpoint.)
///
/// Before an endpoint has seen a real request, answers wait an exponentially distributed delay around
/// `initialMean`.
public final class LatencyMatcher: @unchecked Sendable {
    /// Which of the recent real durations the release time starts from.
    public static let releaseQuantile = 0.97
    /// The random spread added to it, as a fraction.
    public static let releaseSpread = 0.5
    /// The least random spread, in seconds, whatever the recent durations. Answers leave on 1 ms ticks: on a fast
    /// machine half of a short release time is about one tick, the answers bunch on one or two ticks, and a
    /// difference of 50–100 µs between real and fake answers after the tick became visible to the two-sample test
    /// (docs/benchmarks.md, thirteenth round). Spread over several ticks it is small against the spread again.
    public static let minimumSpread = 0.004

    private let lock = NSLock()
    private var windows: [String: RecentDurations] = [:]
    private let windowSize: Int
    private let initialMean: Double
    private let random: any RandomSource
    /// The clock answers leave on: the shared one, or in tests one driven by hand, so that when an answer leaves is
    /// checked tick by tick rather than measured in wall time.
    private let ticker: ReleaseTicker

    /// - Parameters:
    ///   - initialMean: the mean delay, in seconds, before any real request was seen.
    ///   - windowSize: how many recent real durations per endpoint the release time is computed from.
    public convenience init(initialMean: Double = 0.010, windowSize: Int = 256, random: any RandomSource) {
        self.init(initialMean: initialMean, windowSize: windowSize, random: random, ticker: .shared)
    }

    init(initialMean: Double = 0.010, windowSize: Int = 256, random: any RandomSource, ticker: ReleaseTicker) {
        precondition(windowSize > 0)
        self.initialMean = initialMean
        self.windowSize = windowSize
        self.random = random
        self.ticker = ticker
    }

    /// Records the duration of a real request's work.
    public func record(endpoint: String, seconds: Double) {
        lock.withLock {
            windows[endpoint, default: RecentDurations(capacity: windowSize)].append(seconds)
        }
    }

    /// The mean of the recent real durations of `endpoint` (`initialMean` before the first).
    public func mean(endpoint: String) -> Double {
        lock.withLock {
            windows[endpoint]?.mean ?? initialMean
        }
    }

    /// A release time for an answer of `endpoint`, in seconds after its handler started.
    public func releaseDelay(endpoint: String) -> Double {
        let base: Double? = lock.withLock { windows[endpoint]?.quantile(Self.releaseQuantile) }
        if let base {
            return base + max(base * Self.releaseSpread, Self.minimumSpread) * random.unitInterval()
        }
        // Inverse transform sampling of the exponential law; 1 - u is in (0, 1], so the logarithm is finite.
        let u = random.unitInterval()
        return min(-log(1 - u) * initialMean, initialMean * 20)
    }

    /// Runs a real request's work and records how long it took.
    public func measure<T>(endpoint: String, _ work: () async throws -> T) async rethrows -> T {
        let start = ContinuousClock.now
        let result = try await work()
        record(endpoint: endpoint, seconds: (ContinuousClock.now - start).seconds)
        return result
    }

    /// Waits until the answer to a request of `endpoint` that started at `start` may leave. Real and fake
    /// answers both call this, so that both leave the same way.
    public func release(endpoint: String, since start: ContinuousClock.Instant) async {
        let deadline = start + .nanoseconds(Int64(releaseDelay(endpoint: endpoint) * 1e9))
        // Even an answer whose release time has passed waits for the next tick: every answer leaves on one.
        await ticker.wait(until: deadline)
    }

    /// Waits as `release` does, for a fake answer. A real request's work ends with a wake-up (the database or a
    /// service answering) some time before its release, and threads that were woken a moment ago answer faster
    /// than threads that slept for the whole delay. A fake imitates that in one of two ways:
    ///
    /// - With a `decoy` (the real request's reads, with keys that match nothing), it runs the decoy and then waits
    ///   with `release`. Endpoints whose real work asks another service need this: the network threads that the
    ///   other service's answer wakes write the answer 0.1 to 0.3 ms sooner, which no wake-up of the handler alone
    ///   imitated, and a two-sample test saw it.
    /// - Without one, it wakes once after a duration drawn from the recent real work, on a tick. When that tick is
    ///   at or past the release time, it leaves on it, as a real answer whose work overran its release does.
    public func releaseFake(endpoint: String, since start: ContinuousClock.Instant, decoy: (() async -> Void)? = nil) async {
        if let decoy {
            await decoy()
            await release(endpoint: endpoint, since: start)
            return
        }
        let release = start + .nanoseconds(Int64(releaseDelay(endpoint: endpoint) * 1e9))
        let work: Double? = lock.withLock { windows[endpoint]?.sample(random) }
        if let work {
            let wakeUp = start + .nanoseconds(Int64(work * 1e9))
            if await ticker.wait(until: wakeUp) >= release { return }
        }
        await ticker.wait(until: release)
    }
}
