import Foundation
import NIOCore
import NIOPosix

/// Lets waiting answers leave on the ticks of one shared clock, a millisecond apart.
///
/// A timer of its own per answer would tell how long the process had been idle: waking a CPU that slept for the
/// whole of a fake request's delay takes measurably longer than waking one that a real request's work left
/// busy a moment ago. On a shared tick every answer leaves from the same wake-up, whatever it did before.
/// The tick runs while answers wait, and for a second after the last one.
///
/// Ticks are due at fixed instants (the first one plus whole intervals), not an interval after the previous tick
/// ran: with a fixed delay between ticks, every tick that a real request's I/O held up on the event loop pushed
/// all later ticks back, so real answers left about 0.1 ms later than fakes, whose waits see an idle loop, and a
/// two-sample test told submissions apart (docs/privacy.md). A late tick now delays only itself.
final class ReleaseTicker: @unchecked Sendable {
    typealias Instant = ContinuousClock.Instant

    static let shared = ReleaseTicker(timers: EventLoopTimers(loops: MultiThreadedEventLoopGroup.singleton.next()))
    static let interval: Duration = .milliseconds(1)
    static let idleTicksBeforeStopping = 1_000

    private let timers: any MonotonicTimers
    private let lock = NSLock()
    /// Ordered by deadline, the latest first, so that the due ones are taken from the end.
    private var waiters: [(deadline: Instant, continuation: CheckedContinuation<Instant, Never>)] = []
    /// The instant the scheduled tick is due at; nil while the clock is stopped.
    private var nextTick: Instant?
    private var idleTicks = 0

    init(timers: any MonotonicTimers) {
        self.timers = timers
    }

    /// How many answers wait for a tick.
    var waiting: Int { lock.withLock { waiters.count } }

    /// Returns at the first tick at or after `deadline`, with the instant of that tick.
    @discardableResult
    func wait(until deadline: Instant) async -> Instant {
        await withCheckedContinuation { continuation in
            lock.withLock {
                // Binary search for the place after every later (or equal) deadline.
                var low = 0, high = waiters.count
                while low < high {
                    let middle = (low + high) / 2
                    if waiters[middle].deadline >= deadline { low = middle + 1 } else { high = middle }
                }
                waiters.insert((deadline, continuation), at: low)
                idleTicks = 0
                if nextTick == nil {
                    let first = timers.now() + Self.interval
                    nextTick = first
                    schedule(first)
                }
            }
        }
    }

    /// The tick that follows one due at `previous`, when the clock reads `now`: the next instant of the grid that
    /// has not passed. After a stall of more than a tick (a suspended VM, a blocked loop) the missed ticks are
    /// skipped, not fired in a burst, and the clock stays on its grid.
    static func tick(after previous: Instant, now: Instant) -> Instant {
        let next = previous + interval
        guard now > next else { return next }
        let missed = Int((now - next) / interval)
        return next + interval * (missed + 1)
    }

    /// Called with the lock held.
    private func schedule(_ instant: Instant) {
        timers.schedule(at: instant) { [weak self] in self?.tick() }
    }

    private func tick() {
        let now = timers.now()
        let due: [CheckedContinuation<Instant, Never>] = lock.withLock {
            var due: [CheckedContinuation<Instant, Never>] = []
            while let last = waiters.last, last.deadline <= now {
                due.append(waiters.removeLast().continuation)
            }
            if waiters.isEmpty {
                idleTicks += 1
            }
            if idleTicks >= Self.idleTicksBeforeStopping {
                nextTick = nil
            } else if let previous = nextTick {
                let next = Self.tick(after: previous, now: now)
                nextTick = next
                schedule(next)
            }
            return due
        }
        for continuation in due { continuation.resume(returning: now) }
    }
}
