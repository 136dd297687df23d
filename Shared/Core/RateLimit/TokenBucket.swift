import Foundation

/// A token bucket on the injected clock: `capacity` tokens, refilled at `refillPerSecond`.
///
/// Used where a limit must hold for everyone together (IP-based limits are ruled out by privacy), such as
/// failed teleTAN registrations.
public final class TokenBucket: @unchecked Sendable {
    private let lock = NSLock()
    private let capacity: Double
    private let refillPerSecond: Double
    private let clock: any WallClock
    private var tokens: Double
    private var updated: Date

    public init(capacity: Int, refillPerSecond: Double, clock: any WallClock) {
        self.capacity = Double(capacity)
        self.refillPerSecond = refillPerSecond
        self.clock = clock
        self.tokens = Double(capacity)
        self.updated = clock.now()
    }

    /// Takes a token if one is left.
    public func tryTake() -> Bool {
        lock.withLock {
            refill()
            guard tokens >= 1 else { return false }
            tokens -= 1
            return true
        }
    }

    /// Whether a token is left, without taking it.
    public func hasToken() -> Bool {
        lock.withLock {
            refill()
            return tokens >= 1
        }
    }

    private func refill() {
        let now = clock.now()
        let elapsed = max(0, now.timeIntervalSince(updated))
        tokens = min(capacity, tokens + elapsed * refillPerSecond)
        updated = now
    }
}
