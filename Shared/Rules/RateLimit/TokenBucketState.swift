import Foundation

/// The arithmetic of one token bucket: `capacity` tokens, refilled continuously at `refillPerSecond`.
///
/// A value without a lock, so that `TokenBucket` (one bucket) and `SourceRateLimiter` (one per source) hold it
/// under their own lock and take from it in one step: a check and a later take would let concurrent callers all
/// pass the check.
public struct TokenBucketState: Sendable {
    public let capacity: Double
    public let refillPerSecond: Double
    private(set) var tokens: Double
    private(set) var updated: Date

    public init(capacity: Int, refillPerSecond: Double, now: Date) {
        self.capacity = Double(capacity)
        self.refillPerSecond = refillPerSecond
        self.tokens = Double(capacity)
        self.updated = now
    }

    /// Takes a token if one is left at `now`.
    public mutating func tryTake(now: Date) -> Bool {
        refill(now: now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// Returns a token taken for an attempt that turned out not to count (never above the capacity).
    public mutating func giveBack(now: Date) {
        refill(now: now)
        tokens = min(capacity, tokens + 1)
    }

    /// Whether the bucket is full at `now`: it then behaves exactly as a new one, so it may be forgotten.
    public func isFull(now: Date) -> Bool {
        tokens + max(0, now.timeIntervalSince(updated)) * refillPerSecond >= capacity
    }

    private mutating func refill(now: Date) {
        let elapsed = max(0, now.timeIntervalSince(updated))
        tokens = min(capacity, tokens + elapsed * refillPerSecond)
        updated = max(updated, now)
    }
}
