import Foundation

/// The share of the global guess allowance kept for networks that have no guess standing against them today: a
/// patient typing the teleTAN an officer read out is served from it while attackers keep the shared bucket empty.
///
/// Every attacker network has guessed wrong (that is how it emptied the shared bucket), so it cannot draw here; a
/// network may draw one token, and only while no guess of its counts against it: every guess of a network, from the
/// shared bucket or from here, is noted until it is given back (a right guess, or one without a verdict), so a wrong
/// guess marks its network until the key rotates. So an attacker takes at most one token here per network it holds
/// per day (the first guess of each, when that found the shared bucket empty), and the reserve's burst is sized above
/// the networks the threat model grants the attacker (docs/security.md, "Guess probability of teleTANs per day").
///
/// Networks are kept as HMAC-SHA256 under a key in memory only, replaced daily (`SourceKeyring`), at most
/// `maxNetworks` of them: a network given back all its guesses is forgotten at once, and when the table is full the
/// reserve serves no network it does not hold (it fails closed: forgetting a wrong guess would hand its network a
/// token again).
public final class GuessReserve: @unchecked Sendable {
    private let lock = NSLock()
    private let clock: any WallClock
    private let maxNetworks: Int
    private var keyring: SourceKeyring
    private var bucket: TokenBucketState
    /// Guesses that count against each network now: taken and neither given back nor forgiven.
    private var standing: [Data: Int] = [:]

    public init(
        capacity: Int, refillPerSecond: Double, maxNetworks: Int = 100_000, keyLifetime: TimeInterval = 86_400,
        clock: any WallClock, random: any RandomSource
    ) {
        precondition(maxNetworks > 0)
        self.clock = clock
        self.maxNetworks = maxNetworks
        let now = clock.now()
        keyring = SourceKeyring(lifetime: keyLifetime, random: random, now: now)
        bucket = TokenBucketState(capacity: capacity, refillPerSecond: refillPerSecond, now: now)
    }

    /// Notes a guess of `network` paid from the shared bucket: from now on it counts against the network.
    public func note(network: some Sequence<UInt8>) {
        lock.withLock {
            let id = identifier(of: network)
            guard standing[id] != nil || standing.count < maxNetworks else { return }
            standing[id, default: 0] += 1
        }
    }

    /// Takes a token for a guess of `network` if no guess counts against it and a token is left.
    public func tryTake(network: some Sequence<UInt8>) -> Bool {
        lock.withLock {
            let id = identifier(of: network)
            guard standing[id] == nil, standing.count < maxNetworks, bucket.tryTake(now: clock.now()) else { return false }
            standing[id] = 1
            return true
        }
    }

    /// Forgives a guess of `network` that does not count (noted or taken here), returning its token when it was
    /// taken here.
    public func giveBack(network: some Sequence<UInt8>, token: Bool) {
        lock.withLock {
            let id = identifier(of: network)
            if token { bucket.giveBack(now: clock.now()) }
            guard let count = standing[id] else { return }
            standing[id] = count > 1 ? count - 1 : nil
        }
    }

    /// Networks with a guess counting against them now.
    public var markedNetworks: Int { lock.withLock { standing.count } }

    private func identifier(of network: some Sequence<UInt8>) -> Data {
        let (id, rotated) = keyring.identifier(of: network, now: clock.now())
        if rotated { standing.removeAll() }
        return id
    }
}
