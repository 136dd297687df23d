import Foundation

/// A flag that one task sets and another reads.
public final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    public init() {}

    public var isSet: Bool { lock.withLock { value } }

    public func set() { lock.withLock { value = true } }

    /// Waits until another task sets the flag: a body that holds something (a lock, a transaction) until the test
    /// releases it. Throws after `limit`, so that a test that never sets it fails instead of hanging.
    public func wait(limit: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + limit
        while !isSet {
            guard ContinuousClock.now < deadline else { throw NotSetInTime(limit: limit) }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    public struct NotSetInTime: Error, CustomStringConvertible {
        public let limit: Duration
        public var description: String { "the flag was not set within \(limit)" }
    }
}
