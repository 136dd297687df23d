import Foundation

/// A token bucket on the injected clock: `capacity` tokens, refilled at `refillPerSecond`.
///
/// There is no "is a token left?" without taking it: callers take before the work the token pays for and give it
/// back when the work turns out not to count, so concurrent callers can never spend more than the bucket holds.
public final class TokenBucket: @unchecked Sendable {
    private let lock = NSLock()
    private let clock: any WallClock
    private var state: TokenBucketState

    public init(capacity: Int, refillPerSecond: Double, clock: any WallClock) {
        self.clock = clock
        self.state = TokenBucketState(capacity: capacity, refillPerSecond: refillPerSecond, now: clock.now())
    }

    /// Takes a token if one is left.
    public func tryTake() -> Bool {
        lock.withLock { state.tryTake(now: clock.now()) }
    }

    /// Returns a token taken by `tryTake` for an attempt that does not count.
    public func giveBack() {
        lock.withLock { state.giveBack(now: clock.now()) }
    }
}
