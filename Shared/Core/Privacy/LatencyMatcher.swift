import Foundation
import NIOCore
import NIOPosix

/// Makes fake requests take as long as real ones, per endpoint.
///
/// Real requests report their duration, and the matcher keeps the most recent ones per endpoint. A fake request
/// waits a duration drawn at random from those: its latency then follows the same distribution as the real
/// requests' (not only the same mean), which is what an observer timing many responses could compare. A mean
/// alone is not enough: a two-sample Kolmogorov–Smirnov test tells an exponential law from the real, narrower
/// one after a few hundred requests. (The reference implementation waited an exponentially distributed delay
/// around one moving average shared by every endpoint.)
///
/// Before an endpoint has seen a real request, fakes wait an exponentially distributed delay around
/// `initialMean`.
public final class LatencyMatcher: @unchecked Sendable {
    private let lock = NSLock()
    private var windows: [String: Window] = [:]
    /// How much longer `Task.sleep` takes than asked, on average (timer slack and scheduling); subtracted from
    /// each wait so that a fake is not systematically slower than the real request it imitates.
    private var sleepOvershoot: Double = 0
    private let windowSize: Int
    private let initialMean: Double
    private let random: any RandomSource

    /// - Parameters:
    ///   - initialMean: the mean delay, in seconds, before any real request was seen.
    ///   - windowSize: how many recent real durations per endpoint fakes draw from.
    public init(initialMean: Double = 0.010, windowSize: Int = 128, random: any RandomSource) {
        precondition(windowSize > 0)
        self.initialMean = initialMean
        self.windowSize = windowSize
        self.random = random
    }

    /// Records the duration of a real request.
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

    /// A delay for a fake request to `endpoint`, in seconds.
    public func fakeDelay(endpoint: String) -> Double {
        let recent: Double? = lock.withLock {
            guard let samples = windows[endpoint]?.samples, !samples.isEmpty else { return nil }
            return samples[Int(random.uniform(below: UInt64(samples.count)))]
        }
        if let recent { return recent }
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

    /// Waits as long as a real request to `endpoint` would take, measured from `start`.
    public func waitLikeReal(endpoint: String, since start: ContinuousClock.Instant) async {
        let target = fakeDelay(endpoint: endpoint)
        let overshoot = lock.withLock { sleepOvershoot }
        let wait = target - (ContinuousClock.now - start).seconds - overshoot
        guard wait > 0 else { return }
        let deadline = ContinuousClock.now + .nanoseconds(Int64(wait * 1e9))
        let group = MultiThreadedEventLoopGroup.singleton
        let coarse = wait - Self.finalStretch
        if coarse > 0 {
            try? await group.any().scheduleTask(in: .nanoseconds(Int64(coarse * 1e9))) {}.futureResult.get()
        }
        while ContinuousClock.now < deadline { await Task.yield() }
        // A real request ends as its database or HTTP call completes on an event loop, which is awake while the
        // answer is built and may well be the one that writes it. A fake's loops would otherwise have slept for
        // the whole delay, and waking an idle CPU costs a fraction of a millisecond that an observer of an idle
        // server can measure. So a loop is woken now, while the fake's answer is encoded.
        group.any().execute {}
        let extra = (ContinuousClock.now - deadline).seconds
        lock.withLock { sleepOvershoot += 0.05 * (max(0, extra) - sleepOvershoot) }
    }

    /// The end of a fake's delay that is waited without sleeping.
    static let finalStretch = 0.000_2

    /// The most recent durations of one endpoint, oldest overwritten first.
    private struct Window {
        let capacity: Int
        var samples: [Double] = []
        var next = 0

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
        }
    }
}
