import Foundation
import NIOCore
import NIOPosix

/// Lets waiting answers leave on the ticks of one shared clock, a millisecond apart.
///
/// A timer of its own per answer would tell how long the process had been idle: waking a CPU that slept for the
/// whole of a fake request's delay takes measurably longer than waking one that a real request's work left
/// busy a moment ago. On a shared tick every answer leaves from the same wake-up, whatever it did before.
/// The tick runs while answers wait, and for a second after the last one.
final class ReleaseTicker: @unchecked Sendable {
    static let shared = ReleaseTicker()
    static let interval: TimeAmount = .milliseconds(1)
    private static let idleTicksBeforeStopping = 1_000

    private let lock = NSLock()
    /// Ordered by deadline, the latest first, so that the due ones are taken from the end.
    private var waiters: [(deadline: ContinuousClock.Instant, continuation: CheckedContinuation<ContinuousClock.Instant, Never>)] = []
    private var ticking: RepeatedTask?
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
                if ticking == nil {
                    let loop = MultiThreadedEventLoopGroup.singleton.next()
                    ticking = loop.scheduleRepeatedTask(initialDelay: Self.interval, delay: Self.interval) { [weak self] _ in
                        self?.tick()
                    }
                }
            }
        }
    }

    private func tick() {
        let now = ContinuousClock.now
        let due: [CheckedContinuation<ContinuousClock.Instant, Never>] = lock.withLock {
            var due: [CheckedContinuation<ContinuousClock.Instant, Never>] = []
            while let last = waiters.last, last.deadline <= now {
                due.append(waiters.removeLast().continuation)
            }
            if waiters.isEmpty {
                idleTicks += 1
                if idleTicks >= Self.idleTicksBeforeStopping {
                    ticking?.cancel()
                    ticking = nil
                }
            }
            return due
        }
        for continuation in due { continuation.resume(returning: now) }
    }
}
