import Foundation

/// A token bucket per source (a client address's rate-limit key), so that one source's attempts cost no other source
/// anything.
///
/// Sources are kept only as HMAC-SHA256 under a random key that lives in memory and is replaced every
/// `keyLifetime` (a day by default): the table cannot be turned back into addresses without the key, and after a
/// rotation not even with an old copy of the process's memory of the day before. A rotation forgets every bucket (the
/// new key cannot find them), which hands each source one fresh burst a day; whoever relies on a bound across sources
/// adds a global bucket (`GuessThrottle`).
///
/// The table is bounded: a source whose bucket has refilled behaves as a new one and is forgotten when the table is
/// full, and while the table is still over `maxSources` the least recently used sources go (down to 90 %, so that the
/// sweep is paid rarely).
public final class SourceRateLimiter: @unchecked Sendable {
    private let lock = NSLock()
    private let capacity: Int
    private let refillPerSecond: Double
    private let maxSources: Int
    private let clock: any WallClock
    private var keyring: SourceKeyring
    private var buckets: [Data: TokenBucketState] = [:]

    public init(
        capacity: Int, refillPerSecond: Double, maxSources: Int = 100_000, keyLifetime: TimeInterval = 86_400,
        clock: any WallClock, random: any RandomSource
    ) {
        precondition(maxSources > 0)
        self.capacity = capacity
        self.refillPerSecond = refillPerSecond
        self.maxSources = maxSources
        self.clock = clock
        self.keyring = SourceKeyring(lifetime: keyLifetime, random: random, now: clock.now())
    }

    /// Takes a token from `source`'s bucket if one is left.
    public func tryTake(source: some Sequence<UInt8>) -> Bool {
        lock.withLock {
            let now = clock.now()
            let id = identifier(of: source, now: now)
            var bucket = buckets[id] ?? TokenBucketState(capacity: capacity, refillPerSecond: refillPerSecond, now: now)
            let taken = bucket.tryTake(now: now)
            if buckets[id] == nil { makeRoom(now: now) }
            buckets[id] = bucket
            return taken
        }
    }

    /// Returns a token taken by `tryTake` for an attempt that does not count.
    public func giveBack(source: some Sequence<UInt8>) {
        lock.withLock {
            let now = clock.now()
            let id = identifier(of: source, now: now)
            guard var bucket = buckets[id] else { return }
            bucket.giveBack(now: now)
            buckets[id] = bucket
        }
    }

    /// Sources with a bucket in memory now.
    public var trackedSources: Int { lock.withLock { buckets.count } }

    /// What the table holds for `source`: its HMAC under the current key (for tests of what is kept).
    func storedIdentifier(of source: some Sequence<UInt8>) -> Data {
        lock.withLock { identifier(of: source, now: clock.now()) }
    }

    /// The key under which sources are kept now, rotated first when it has expired.
    private func identifier(of source: some Sequence<UInt8>, now: Date) -> Data {
        let (id, rotated) = keyring.identifier(of: source, now: now)
        if rotated { buckets.removeAll() }
        return id
    }

    /// Before a new source is added to a full table: forgets refilled buckets, then the least recently used.
    private func makeRoom(now: Date) {
        guard buckets.count >= maxSources else { return }
        buckets = buckets.filter { !$0.value.isFull(now: now) }
        let target = maxSources * 9 / 10
        guard buckets.count > target else { return }
        let oldest = buckets.sorted { $0.value.updated < $1.value.updated }.prefix(buckets.count - target)
        for (id, _) in oldest { buckets[id] = nil }
    }
}
