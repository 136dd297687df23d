import Testing

/// Polls a condition that other tasks will make true; records an issue after `limit` instead of hanging, so a test
/// whose expectation never comes true fails rather than waits for ever. The default limit is far above what any
/// condition takes (milliseconds): it is there to end a hang, not to time the work, and tests run in parallel on a
/// machine that may be busy.
public func waitUntil(
    limit: Duration = .seconds(60), sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) async throws {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("condition not met within \(limit)", sourceLocation: sourceLocation)
            return
        }
        try await Task.sleep(for: .milliseconds(1))
    }
}

/// Polls an asynchronous condition (an HTTP answer, a database count) every `interval` until it holds; records an
/// issue after `limit` instead of hanging. As above, the limit only ends a hang: the verdict is the condition, never
/// how long it took, so the work it waits for (a flush every second, an idle timeout) may be slowed by a busy machine
/// by far more than it takes.
public func pollUntil(
    limit: Duration = .seconds(60), interval: Duration = .milliseconds(100), sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + limit
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("condition not met within \(limit)", sourceLocation: sourceLocation)
            return
        }
        try await Task.sleep(for: interval)
    }
}
