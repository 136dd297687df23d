import Foundation
import Testing

@testable import ExposureCore

/// A clock that moves only when the test moves it, and the timers scheduled on it, run when the test says: so
/// lateness, stalls and deadlines are exact rather than hoped for, and no test waits for real time.
final class HandDrivenTimers: MonotonicTimers, @unchecked Sendable {
    let origin = ContinuousClock.now
    private let lock = NSLock()
    private var current: ContinuousClock.Instant
    private var scheduled: [(id: Int, at: ContinuousClock.Instant, body: @Sendable () -> Void)] = []
    private var lastID = 0

    init() { current = origin }

    func now() -> ContinuousClock.Instant { lock.withLock { current } }

    func schedule(at instant: ContinuousClock.Instant, _ body: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let id = lock.withLock {
            lastID += 1
            scheduled.append((lastID, instant, body))
            return lastID
        }
        return { self.lock.withLock { self.scheduled.removeAll { $0.id == id } } }
    }

    func instant(_ milliseconds: Double) -> ContinuousClock.Instant {
        origin + .nanoseconds(Int64((milliseconds * 1e6).rounded()))
    }

    /// When the scheduled (and not cancelled) timers are due, in milliseconds after the origin.
    var pending: [Double] {
        lock.withLock { scheduled.map { ($0.at - origin) / .milliseconds(1) } }
    }

    /// Moves the clock to `milliseconds` after the origin and runs the timer scheduled first there: late when that
    /// is after it was due.
    func runTick(at milliseconds: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        let tick: (id: Int, at: ContinuousClock.Instant, body: @Sendable () -> Void)? = lock.withLock {
            current = instant(milliseconds)
            return scheduled.isEmpty ? nil : scheduled.removeFirst()
        }
        guard let tick else {
            Issue.record("no timer is scheduled", sourceLocation: sourceLocation)
            return
        }
        #expect(tick.at <= now(), "a timer runs at or after the instant it is due", sourceLocation: sourceLocation)
        tick.body()
    }

    /// Moves the clock to `milliseconds` after the origin and runs, in the order they are due, the timers due by then.
    func advance(to milliseconds: Double) {
        let due: [@Sendable () -> Void] = lock.withLock {
            current = instant(milliseconds)
            let due = scheduled.filter { $0.at <= current }.sorted { $0.at < $1.at }
            scheduled.removeAll { $0.at <= current }
            return due.map(\.body)
        }
        for body in due { body() }
    }
}
