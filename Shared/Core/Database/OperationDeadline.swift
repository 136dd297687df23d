import Foundation

/// A database operation that took longer than the service allows; the request fails (5xx) instead of waiting on.
public struct DatabaseTimeoutError: Error, CustomStringConvertible {
    public let limit: Duration
    public var description: String { "the database did not answer within \(limit)" }
}

/// Runs an operation with a deadline that holds even when the operation ignores cancellation.
///
/// Why not a task group: a group returns only after every child has ended, so a child stuck on a dead connection
/// would keep the caller waiting forever. PostgresNIO can leave a query waiting forever when its connection is
/// closed under it (the server restarting or crashing at that moment; see `DatabaseRestartTests`), and a request
/// must never hang. So the operation runs in a task of its own: the caller gets its result, or at the deadline a
/// `DatabaseTimeoutError`, and the operation is then cancelled and left to end on its own.
///
/// Why not `Task.sleep` for the deadline: on Linux a cancelled sleep leaves its timer, and the sleeping task's
/// memory, in the dispatch timer heap until the full limit has passed. At thousands of operations per second and
/// a limit of 30 s that was some 100,000 live timers: 30–50 MB of the verification service's peak memory, and about
/// 5 % of its CPU re-sorting the heap (docs/benchmarks.md). A timer scheduled on an event loop leaves the loop's
/// queue when it is cancelled.
enum OperationDeadline {
    static func run<T: Sendable>(
        _ limit: Duration, timers: some MonotonicTimers = EventLoopTimers.shared,
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await run(limit, timers: timers, untilLifted: { _ in try await operation() })
    }

    /// As `run`, for an operation of which only the start is bounded: once it has what it was waiting for (a
    /// connection and a lock, say), it calls `deadline.lift()` and may then take as long as it needs. `lift()`
    /// returns false when the deadline has already passed: the caller has been answered with
    /// `DatabaseTimeoutError`, and the operation should give back what it got and end.
    static func run<T: Sendable>(
        _ limit: Duration, timers: some MonotonicTimers = EventLoopTimers.shared,
        untilLifted operation: @escaping @Sendable (LiftableDeadline) async throws -> T
    ) async throws -> T {
        let outcome = OnceOutcome<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                outcome.start(continuation: continuation, limit: limit, timers: timers, operation: operation)
            }
        } onCancel: {
            outcome.cancel()
        }
    }
}

/// Handed to an operation whose deadline covers only its start (`OperationDeadline.run(_:untilLifted:)`).
struct LiftableDeadline: Sendable {
    /// Ends the deadline; false when it had already passed.
    let lift: @Sendable () -> Bool
}

/// The first of "the operation ended" and "the deadline passed" resumes the caller; the other is ignored.
private final class OnceOutcome<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var work: Task<Void, Never>?
    private var cancelTimer: (@Sendable () -> Void)?
    private var cancelled = false
    private var lifted = false

    func start(
        continuation: CheckedContinuation<T, any Error>, limit: Duration, timers: some MonotonicTimers,
        operation: @escaping @Sendable (LiftableDeadline) async throws -> T
    ) {
        lock.withLock { self.continuation = continuation }
        // The timer is stored before the operation starts, so that an operation which ends (or lifts its deadline)
        // at once finds it to cancel.
        let cancelTimer = timers.schedule(after: limit) { self.expire(limit: limit) }
        lock.withLock { self.cancelTimer = cancelTimer }
        let deadline = LiftableDeadline { self.lift() }
        let work = Task {
            let result: Result<T, any Error>
            do { result = .success(try await operation(deadline)) } catch { result = .failure(error) }
            self.finish(result)
        }
        let cancelNow = lock.withLock {
            self.work = work
            // The caller was cancelled, or the deadline passed, before the operation's task was stored (an
            // operation that has already ended is not disturbed by the cancellation).
            return cancelled || self.continuation == nil
        }
        if cancelNow { work.cancel() }
    }

    /// The caller was cancelled (e.g. the service is shutting down): the operation is asked to stop, and the
    /// deadline stays, because an operation stuck on a closed connection ignores the request.
    func cancel() {
        let work = lock.withLock {
            cancelled = true
            return self.work
        }
        work?.cancel()
    }

    private func lift() -> Bool {
        let (inTime, cancelTimer): (Bool, (@Sendable () -> Void)?) = lock.withLock {
            guard continuation != nil else { return (false, nil) }
            lifted = true
            defer { self.cancelTimer = nil }
            return (true, self.cancelTimer)
        }
        cancelTimer?()
        return inTime
    }

    private func expire(limit: Duration) {
        let (waiting, work): (CheckedContinuation<T, any Error>?, Task<Void, Never>?) = lock.withLock {
            // A lifted deadline's timer may fire before its cancellation takes effect.
            guard !lifted, let waiting = continuation else { return (nil, nil) }
            continuation = nil
            return (waiting, self.work)
        }
        guard let waiting else { return }
        // The stuck operation is asked to stop; when its task is not stored yet, `start` asks it.
        work?.cancel()
        waiting.resume(throwing: DatabaseTimeoutError(limit: limit))
    }

    private func finish(_ result: Result<T, any Error>) {
        let (waiting, cancelTimer): (CheckedContinuation<T, any Error>?, (@Sendable () -> Void)?) = lock.withLock {
            let waiting = continuation
            continuation = nil
            return (waiting, self.cancelTimer)
        }
        guard let waiting else { return }
        // An operation that ended in time no longer needs its timer.
        cancelTimer?()
        waiting.resume(with: result)
    }
}
