import Foundation

/// Runs blocking `work` (a `poll`/`recv` loop, a child process waited for) on a thread of its own. On one of Swift
/// concurrency's threads (as many as cores: two here) a few such calls from tests running in parallel stall every
/// in-process service of the test run, which then answers nothing until a deadline runs out.
func onThreadOfItsOwn<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// `onThreadOfItsOwn` for work that cannot fail.
func onThreadOfItsOwn<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}
