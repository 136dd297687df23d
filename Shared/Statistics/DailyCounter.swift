import ExposureCore
import Foundation

/// The counts of the running days, in memory, until the flusher adds them to the database (`StatisticsFlusher`).
///
/// Counting is a dictionary update under a lock: no I/O, nothing a request waits for, so a request that counts and
/// one that does not (a fake) take the same time. Every replica keeps its own deltas; the database adds them up.
public final class DailyCounter: @unchecked Sendable {
    /// One count: a figure's part on a day.
    public struct Key: Hashable, Sendable {
        public let day: StatisticsDay
        public let figure: String
        public let breakdown: String

        public init(day: StatisticsDay, figure: String, breakdown: String) {
            self.day = day
            self.figure = figure
            self.breakdown = breakdown
        }
    }

    private let lock = NSLock()
    private let clock: any WallClock
    private var deltas: [Key: Int64] = [:]

    public init(clock: any WallClock) {
        self.clock = clock
    }

    /// Adds `amount` to `figure` (its part `breakdown`; empty for the total) on today's UTC day.
    public func count(_ figure: DailyFigure, breakdown: String = "", by amount: Int = 1) {
        guard amount > 0 else { return }
        let key = Key(day: StatisticsDay(of: clock.now()), figure: figure.name, breakdown: breakdown)
        lock.withLock { deltas[key, default: 0] += Int64(amount) }
    }

    /// The counts since the last call, which the counter forgets; `restore` gives them back when they could not
    /// be stored.
    public func take() -> [Key: Int64] {
        lock.withLock {
            let taken = deltas
            deltas = [:]
            return taken
        }
    }

    /// Adds counts that `take` returned and the database did not store, so that the next flush stores them.
    public func restore(_ taken: [Key: Int64]) {
        lock.withLock { deltas.merge(taken, uniquingKeysWith: +) }
    }

    /// The counts not yet taken (tests).
    public var pending: [Key: Int64] { lock.withLock { deltas } }
}
