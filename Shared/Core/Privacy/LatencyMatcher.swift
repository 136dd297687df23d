import Foundation

/// Makes fake requests take as long as real ones, per endpoint, as seen from the network.
///
/// Matching only the time spent in the handler is not enough: a real request's last step wakes the threads that
/// write its answer, a fake's does not, and on an idle server the difference (a fraction of a millisecond) is
/// visible to a two-sample Kolmogorov–Smirnov test after a few hundred requests. So real and fake answers leave
/// the same way: each waits, from the moment its handler started, until a release time drawn from one
/// distribution, just above the recent real durations (their 97th percentile, plus up to 10 % random spread).
/// Real work that took longer than its draw is answered at once; that happens to about 3 % of real requests.
///
/// The price is latency: a real answer waits for up to the slowest few percent of recent real work. Phones do
/// not notice a few milliseconds; an observer can no longer time the work. (The reference implementation made
/// only fakes wait, an exponentially distributed delay around one moving average shared by every endpoint.)
///
/// Before an endpoint has seen a real request, answers wait an exponentially distributed delay around
/// `initialMean`.
public final class LatencyMatcher: @unchecked Sendable {
    /// Which of the recent real durations the release time starts from.
    public static let releaseQuantile = 0.97
    /// The random spread added to it, as a fraction.
    public static let releaseSpread = 0.1

    private let lock = NSLock()
    private var windows: [String: Window] = [:]
    private let windowSize: Int
    private let initialMean: Double
    private let random: any RandomSource

    /// - Parameters:
    ///   - initialMean: the mean delay, in seconds, before any real request was seen.
    ///   - windowSize: how many recent real durations per endpoint the release time is computed from.
    public init(initialMean: Double = 0.010, windowSize: Int = 256, random: any RandomSource) {
        precondition(windowSize > 0)
        self.initialMean = initialMean
        self.windowSize = windowSize
        self.random = random
    }

    /// Records the duration of a real request's work.
    public func record(endpoint: String, seconds: Double) {
        lock.withLock {
            windows[endpoint, default: Window(capacity: windowSize)].append(seconds)
        }
    }

    /// The mean of the recent real durations of `endpoint` (`initialMean` before the first).
    public func mean(endpoint: String) -> Double {
        lock.withLock {
            guard let window = windows[endpoint], !window.samples.isEmpty else { return initialMean }
            return window.samples.reduce(0, +) / Double(window.samples.count)
        }
    }

    /// A release time for an answer of `endpoint`, in seconds after its handler started.
    public func releaseDelay(endpoint: String) -> Double {
        let base: Double? = lock.withLock { windows[endpoint]?.quantile(Self.releaseQuantile) }
        if let base {
            return base * (1 + Self.releaseSpread * random.unitInterval())
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
        guard deadline > ContinuousClock.now else { return }
        await ReleaseTicker.shared.wait(until: deadline)
    }

    /// The most recent durations of one endpoint, oldest overwritten first.
    private struct Window {
        let capacity: Int
        private(set) var samples: [Double] = []
        private var next = 0
        private var cachedQuantile: (q: Double, value: Double)?

        init(capacity: Int) {
            self.capacity = capacity
            samples.reserveCapacity(capacity)
        }

        mutating func append(_ value: Double) {
            if samples.count < capacity {
                samples.append(value)
            } else {
                samples[next] = value
                next = (next + 1) % capacity
            }
            cachedQuantile = nil
        }

        /// The `q` quantile of the samples (nil when there are none), computed at most once per new sample.
        mutating func quantile(_ q: Double) -> Double? {
            guard !samples.isEmpty else { return nil }
            if let cached = cachedQuantile, cached.q == q { return cached.value }
            let sorted = samples.sorted()
            let value = sorted[min(sorted.count - 1, Int(q * Double(sorted.count)))]
            cachedQuantile = (q, value)
            return value
        }
    }
}
