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
    static let shared = ReleaseTicker()
    static let interval: TimeAmount = .milliseconds(1)
    private static let idleTicksBeforeStopping = 1_000

    private let lock = NSLock()
    /// Ordered by deadline, the latest first, so that the due ones are taken from the end.
    private var waiters: [(deadline: ContinuousClock.Instant, continuation: CheckedContinuation<ContinuousClock.Instant, Never>)] = []
    /// Whether the clock runs: a tick is scheduled, due at `nextTick`.
    private var isTicking = false
    private var nextTick = NIODeadline.now()
    private var idleTicks = 0

    /// Returns at the first tick at or after `deadline`, with the instant of that tick.
    @discardableResult
    func wait(until deadline: ContinuousClock.Instant) async -> ContinuousClock.Instant {
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
                if !isTicking {
                    isTicking = true
                    nextTick = .now() + Self.interval
                    scheduleNextTick(on: MultiThreadedEventLoopGroup.singleton.next())
                }
            }
        }
    }

    /// Called with the lock held.
    private func scheduleNextTick(on loop: any EventLoop) {
        loop.scheduleTask(deadline: nextTick) { [weak self] in
            self?.tick(on: loop)
        }
    }

    private func tick(on loop: any EventLoop) {
        let now = ContinuousClock.now
        let due: [CheckedContinuation<ContinuousClock.Instant, Never>] = lock.withLock {
            var due: [CheckedContinuation<ContinuousClock.Instant, Never>] = []
            while let last = waiters.last, last.deadline <= now {
                due.append(waiters.removeLast().continuation)
            }
            if waiters.isEmpty {
                idleTicks += 1
            }
            if idleTicks >= Self.idleTicksBeforeStopping {
                isTicking = false
            } else {
                nextTick = nextTick + Self.interval
                // After a stall of more than a tick (a suspended VM, a blocked loop) the missed ticks are skipped,
                // not fired in a burst, and the clock stays on its grid.
                let behind = NIODeadline.now() - nextTick
                if behind.nanoseconds > 0 {
                    nextTick = nextTick + .nanoseconds((behind.nanoseconds / Self.interval.nanoseconds + 1) * Self.interval.nanoseconds)
                }
                scheduleNextTick(on: loop)
            }
            return due
        }
        for continuation in due { continuation.resume(returning: now) }
    }
}
