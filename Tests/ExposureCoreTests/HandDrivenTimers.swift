import Foundation
import Testing

@testable import ExposureCore

/// A clock that moves only when the test moves it, and the timers scheduled on it, run when the test says: so
/// lateness, stalls and deadlines are exact rather than hoped for, and no test waits for real time.
final class HandDrivenTimers: MonotonicTimers, @unchecked Sendable {
    let origin = ContinuousClock.now
    private let lock = NSLock()
    private var current: ContinuousClock.Instant
    /// Every timer ever scheduled, in the order it was, so that tests can also ask about cancelled and fired ones.
    private var timers: [Timer] = []
    /// Runs inside `schedule`, after the timer is recorded: a deadline that passes before the scheduler goes on.
    private let whenScheduled: @Sendable (HandDrivenTimers) -> Void

    private struct Timer {
        let at: ContinuousClock.Instant
        /// How far after the clock's instant at scheduling the timer was due.
        let delay: Duration
        let body: @Sendable () -> Void
        var cancelled = false
        var fired = false
        var pending: Bool { !cancelled && !fired }
    }

    init(whenScheduled: @escaping @Sendable (HandDrivenTimers) -> Void = { _ in }) {
        current = origin
        self.whenScheduled = whenScheduled
    }

    func now() -> ContinuousClock.Instant { lock.withLock { current } }

    func schedule(at instant: ContinuousClock.Instant, _ body: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let index = lock.withLock {
            timers.append(Timer(at: instant, delay: instant - current, body: body))
            return timers.count - 1
        }
        whenScheduled(self)
        return { self.lock.withLock { self.timers[index].cancelled = true } }
    }

    func instant(_ milliseconds: Double) -> ContinuousClock.Instant {
        origin + .nanoseconds(Int64((milliseconds * 1e6).rounded()))
    }

    /// When the scheduled timers that have neither fired nor been cancelled are due, in milliseconds after the origin.
    var pending: [Double] {
        lock.withLock { timers.filter(\.pending).map { ($0.at - origin) / .milliseconds(1) } }
    }

    /// The delay each timer was scheduled with, in the order scheduled: the deadline each operation was given.
    var delays: [Duration] { lock.withLock { timers.map(\.delay) } }

    /// Whether each timer, in the order scheduled, was cancelled.
    var cancellations: [Bool] { lock.withLock { timers.map(\.cancelled) } }

    /// Moves the clock to `milliseconds` after the origin and runs the pending timer scheduled first: late when that
    /// is after it was due.
    func runTick(at milliseconds: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        let tick: Timer? = lock.withLock {
            current = instant(milliseconds)
            return takeFirst(where: \.pending)
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
            var due: [Timer] = []
            while let timer = takeFirst(where: { $0.pending && $0.at <= current }) { due.append(timer) }
            return due.sorted { $0.at < $1.at }.map(\.body)
        }
        for body in due { body() }
    }

    /// Runs the only timer scheduled, where it was due, as the event loop would: unless it was cancelled.
    func fire(sourceLocation: SourceLocation = #_sourceLocation) {
        guard let timer = onlyTimer(sourceLocation), !timer.cancelled else { return }
        timer.body()
    }

    /// Runs the only timer scheduled even when it was cancelled: one already running when its cancellation came.
    func fireEvenIfCancelled(sourceLocation: SourceLocation = #_sourceLocation) {
        onlyTimer(sourceLocation)?.body()
    }

    private func onlyTimer(_ sourceLocation: SourceLocation) -> Timer? {
        let timer: Timer? = lock.withLock {
            guard timers.count == 1 else { return nil }
            timers[0].fired = true
            return timers[0]
        }
        if timer == nil { Issue.record("one timer expected", sourceLocation: sourceLocation) }
        return timer
    }

    /// Marks the first timer matching `condition` fired and returns it; the caller holds the lock.
    private func takeFirst(where condition: (Timer) -> Bool) -> Timer? {
        guard let index = timers.firstIndex(where: condition) else { return nil }
        timers[index].fired = true
        return timers[index]
    }
}
