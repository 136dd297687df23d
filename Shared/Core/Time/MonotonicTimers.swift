import NIOCore
import NIOPosix

/// The monotonic clock and one-shot timers of the core's time-driven parts: the release ticker, the deadlines of
/// database operations and the batches' spare requests. In a service they are an event loop's; tests drive them by
/// hand, so that no test waits for real time and lateness and stalls are exact rather than hoped for.
protocol MonotonicTimers: Sendable {
    func now() -> ContinuousClock.Instant
    /// Runs `body` once, at `instant` or as soon after it as the timers can, unless the returned closure cancels it
    /// first.
    @discardableResult
    func schedule(at instant: ContinuousClock.Instant, _ body: @escaping @Sendable () -> Void) -> @Sendable () -> Void
}

extension MonotonicTimers {
    /// Runs `body` once, `delay` from now, unless the returned closure cancels it first.
    @discardableResult
    func schedule(after delay: Duration, _ body: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        schedule(at: now() + delay, body)
    }
}

/// Timers on event loops. Why not `Task.sleep`: on Linux a cancelled sleep leaves its timer, and the sleeping task's
/// memory, in the dispatch timer heap until its full delay has passed (see `OperationDeadline`); an event loop's
/// timer leaves the loop's queue when it is cancelled, and needs no thread of its own.
struct EventLoopTimers: MonotonicTimers {
    /// The loops the timers run on: a group spreads them (`any()` prefers the calling loop), one loop keeps them in
    /// one order.
    let loops: any EventLoopGroup

    /// Spread over the shared event loops.
    static let shared = EventLoopTimers(loops: MultiThreadedEventLoopGroup.singleton)

    func now() -> ContinuousClock.Instant { .now }

    @discardableResult
    func schedule(at instant: ContinuousClock.Instant, _ body: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let timer = loops.any().scheduleTask(in: TimeAmount(instant - .now)) { body() }
        return { timer.cancel() }
    }
}
