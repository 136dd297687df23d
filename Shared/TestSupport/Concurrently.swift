import Foundation

/// Runs `body` `count` times at once and returns every result (in no particular order): for tests of races,
/// such as fifty requests spending one TAN. The tasks start together: each waits at a `StartBarrier` until all
/// `count` exist, so that none has finished before the last begins. For HTTP, send through a client with at least
/// `count` connections per host (`withManyConnections`), or at most eight requests are in flight at once.
public func concurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable () async throws -> T) async throws -> [T] {
    let barrier = StartBarrier(count)
    return try await withThrowingTaskGroup(of: T.self) { group in
        for _ in 0..<count {
            group.addTask {
                await barrier.arrive()
                return try await body()
            }
        }
        return try await group.reduce(into: [T]()) { $0.append($1) }
    }
}

/// Holds the tasks that arrive until `count` of them have, then lets them all go at once.
public final class StartBarrier: @unchecked Sendable {
    private let lock = NSLock()
    private let count: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var open = false

    public init(_ count: Int) {
        self.count = count
    }

    public func arrive() async {
        await withCheckedContinuation { continuation in
            let release: [CheckedContinuation<Void, Never>] = lock.withLock {
                guard !open else { return [continuation] }
                waiting.append(continuation)
                guard waiting.count >= count else { return [] }
                open = true
                defer { waiting = [] }
                return waiting
            }
            release.forEach { $0.resume() }
        }
    }
}
