import Foundation

/// Makes fake requests take as long as real ones, per endpoint.
///
/// Real requests report their duration; the matcher keeps an exponentially weighted moving average per
/// endpoint, and a fake request waits a delay drawn from an exponential distribution (the inter-arrival law
/// of a Poisson process) with that mean, so that an observer timing responses cannot tell the two apart.
/// (The reference implementation updated one shared average from every endpoint; each endpoint has its own
/// here.)
public final class LatencyMatcher: @unchecked Sendable {
    private let lock = NSLock()
    private var averages: [String: Double] = [:]
    private let smoothing: Double
    private let initialMean: Double
    private let random: any RandomSource

    /// - Parameters:
    ///   - initialMean: the mean, in seconds, before any real request was seen.
    ///   - smoothing: weight of the newest observation in the moving average.
    public init(initialMean: Double = 0.010, smoothing: Double = 0.1, random: any RandomSource) {
        self.initialMean = initialMean
        self.smoothing = smoothing
        self.random = random
    }

    /// Records the duration of a real request.
    public func record(endpoint: String, seconds: Double) {
        lock.withLock {
            let previous = averages[endpoint] ?? seconds
            averages[endpoint] = previous + smoothing * (seconds - previous)
        }
    }

    public func mean(endpoint: String) -> Double {
        lock.withLock { averages[endpoint] ?? initialMean }
    }

    /// A delay for a fake request to `endpoint`, in seconds.
    public func fakeDelay(endpoint: String) -> Double {
        let mean = self.mean(endpoint: endpoint)
        // Inverse transform sampling; 1 - u is in (0, 1], so the logarithm is finite.
        let u = random.unitInterval()
        return min(-log(1 - u) * mean, mean * 20)
    }

    /// Runs a real request's work and records how long it took.
    public func measure<T>(endpoint: String, _ work: () async throws -> T) async rethrows -> T {
        let start = ContinuousClock.now
        defer { record(endpoint: endpoint, seconds: (ContinuousClock.now - start).seconds) }
        return try await work()
    }

    /// Waits as long as a real request to `endpoint` would take, measured from `start`.
    public func waitLikeReal(endpoint: String, since start: ContinuousClock.Instant) async {
        let target = fakeDelay(endpoint: endpoint)
        let elapsed = (ContinuousClock.now - start).seconds
        if target > elapsed {
            try? await Task.sleep(for: .nanoseconds(Int64((target - elapsed) * 1e9)))
        }
    }
}
