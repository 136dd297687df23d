import Foundation

/// The source of "now" for every rule that depends on time (expiry, retention, rate limits, sessions).
///
/// Services never call `Date()` directly, so tests can move time forward deterministically.
public protocol WallClock: Sendable {
    func now() -> Date
}

/// The real clock.
public struct SystemClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that only moves when a test moves it.
public final class ManualClock: WallClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    public init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        self.current = start
    }

    public func now() -> Date {
        lock.withLock { current }
    }

    public func advance(by seconds: TimeInterval) {
        lock.withLock { current = current.addingTimeInterval(seconds) }
    }

    public func set(_ date: Date) {
        lock.withLock { current = date }
    }
}

extension Date {
    /// Whole seconds since 1970, the unit of every timestamp on the wire.
    public var epochSeconds: Int64 { Int64(timeIntervalSince1970.rounded(.down)) }

    /// Whole seconds since 1970 as ISO 8601 (`2026-11-27T12:00:00Z`), as the administration commands print times.
    public static func iso8601(_ epochSeconds: Int64) -> String {
        Date(timeIntervalSince1970: TimeInterval(epochSeconds)).formatted(.iso8601)
    }
}
