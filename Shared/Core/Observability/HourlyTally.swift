import Foundation
import Logging
import Metrics

/// Counts of what app requests decide — real or fake, found or unknown, a TAN valid or refused — published only
/// for whole hours.
///
/// A counter that moves by one when one phone's request is answered tells whoever reads it before and after that
/// request whether the request was real, which is exactly what fake requests exist to hide. So these counts are
/// kept in memory for the running hour (UTC, from the injected clock) and published when the hour has ended, as
/// gauges holding the finished hour's counts (`<label>{…}`, every series seen so far, 0 where the hour had none).
/// Between two publications nothing an app request does moves them. An operator still sees every outcome, an hour
/// late and per hour (docs/privacy.md, "Metrics").
public final class HourlyTally: @unchecked Sendable {
    /// A gauge and its labels.
    public struct Series: Hashable, Sendable, CustomStringConvertible {
        public let label: String
        public let dimensions: [String]  // name, value, name, value, … (Hashable, unlike tuples)

        public init(_ label: String, _ dimensions: [(String, String)] = []) {
            self.label = label
            self.dimensions = dimensions.flatMap { [$0.0, $0.1] }
        }

        public var description: String {
            let pairs = stride(from: 0, to: dimensions.count, by: 2).map { "\(dimensions[$0])=\"\(dimensions[$0 + 1])\"" }
            return pairs.isEmpty ? label : "\(label){\(pairs.joined(separator: ","))}"
        }
    }

    private let lock = NSLock()
    private let clock: any WallClock
    private let publish: @Sendable (_ hourStart: Date, _ counts: [Series: Int64]) -> Void
    private var hour: Int64
    private var counts: [Series: Int64] = [:]
    private var known: Set<Series> = []

    /// - Parameter publish: where a finished hour's counts go (every series seen so far, zeros included); tests
    ///   capture them, the services set gauges.
    public init(clock: any WallClock, publish: @escaping @Sendable (_ hourStart: Date, _ counts: [Series: Int64]) -> Void = HourlyTally.publishToGauges) {
        self.clock = clock
        self.publish = publish
        self.hour = Self.hour(of: clock.now())
    }

    /// Adds `amount` to `series` in the running hour (publishing the hour before, if it has just ended).
    public func count(_ series: Series, by amount: Int = 1) {
        guard amount > 0 else { return }
        let now = Self.hour(of: clock.now())
        let finished = lock.withLock {
            let ended = endHour(before: now)
            counts[series, default: 0] += Int64(amount)
            return ended
        }
        deliver(finished)
    }

    /// Publishes the hour that ended, if one did since the last call. Counting does so too; a service also calls it
    /// every minute (`job`), so that a quiet hour is published without waiting for the next request.
    public func publishIfHourEnded() {
        let now = Self.hour(of: clock.now())
        deliver(lock.withLock { endHour(before: now) })
    }

    /// With the lock held: when `now` is a later hour than the running one, starts it and returns the hour just
    /// before it with every series seen so far (0 where that hour had none). Only that hour is published: older hours
    /// with no call in between had no counts.
    private func endHour(before now: Int64) -> (hourStart: Date, counts: [Series: Int64])? {
        guard now > hour else { return nil }
        let lastHour = now - 1
        let lastCounts = lastHour == hour ? counts : [:]
        known.formUnion(lastCounts.keys)
        var published: [Series: Int64] = [:]
        for series in known { published[series] = lastCounts[series] ?? 0 }
        hour = now
        counts = [:]
        return (Date(timeIntervalSince1970: TimeInterval(lastHour * 3600)), published)
    }

    private func deliver(_ finished: (hourStart: Date, counts: [Series: Int64])?) {
        guard let finished, !finished.counts.isEmpty else { return }
        publish(finished.hourStart, finished.counts)
    }

    /// Sets one gauge per series to the finished hour's count.
    @Sendable public static func publishToGauges(_ hourStart: Date, _ counts: [Series: Int64]) {
        for (series, count) in counts {
            let dimensions = stride(from: 0, to: series.dimensions.count, by: 2).map { (series.dimensions[$0], series.dimensions[$0 + 1]) }
            Gauge(label: series.label, dimensions: dimensions).record(count)
        }
    }

    private static func hour(of date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / 3600).rounded(.down))
    }
}

extension HourlyTally {
    /// The job that publishes a quiet hour: every minute, in every service that keeps a tally.
    public func job(service: String, logger: Logger) -> PeriodicJob {
        PeriodicJob(name: "\(service).hourly-metrics", interval: .seconds(60), logger: logger) { [self] in
            publishIfHourEnded()
        }
    }
}
