import Foundation

/// Limits attempts at guessing a secret a person types (a teleTAN, a one-time code): each source (a client address)
/// and each network (its IPv4 /24 or IPv6 /48) has its own bucket, every source together draws from one shared bucket,
/// and a reserve (`GuessReserve`) serves networks that have no guess standing against them when the shared bucket is
/// empty.
///
/// A token is taken from each before the secret is looked up and given back when the secret was right, so a burst of
/// concurrent guesses gets exactly as many lookups as tokens. The source's bucket is smaller than its network's, and
/// the network's smaller than the shared one, in burst and in rate (checked by the configuration), so one network on
/// its own, however many addresses it holds, never empties the shared bucket. Many networks together can; then the
/// reserve serves every network that has not guessed wrong today, which no attacker network is. The shared bucket and
/// the reserve bound what all sources together can try, which makes the chance of a hit computable
/// (docs/security.md).
public final class GuessThrottle: Sendable {
    private let perSource: SourceRateLimiter
    private let perNetwork: SourceRateLimiter?
    private let global: TokenBucket
    private let reserve: GuessReserve?

    public init(perSource: SourceRateLimiter, perNetwork: SourceRateLimiter? = nil, global: TokenBucket, reserve: GuessReserve? = nil) {
        self.perSource = perSource
        self.perNetwork = perNetwork
        self.global = global
        self.reserve = reserve
    }

    /// Where an allowed attempt's token came from, to give it back there.
    public enum Pool: Hashable, Sendable {
        case shared
        case reserve
    }

    public enum Decision: Hashable, Sendable {
        case allowed(Pool)
        /// The source used its own allowance.
        case refusedForSource
        /// The source's network used its allowance.
        case refusedForNetwork
        /// Every source together used the shared allowance, and the reserve has nothing for this network.
        case refusedGlobally
    }

    /// Who makes an attempt: its source's and its network's rate-limit keys (`IPAddress.rateLimitKey`,
    /// `IPAddress.networkKey`), or any bytes that stand for them (kept only as keyed hashes).
    public struct Origin: Sendable {
        public var source: [UInt8]
        public var network: [UInt8]

        public init(source: [UInt8], network: [UInt8]) {
            self.source = source
            self.network = network
        }
    }

    /// Takes one attempt for `origin`: from its source's bucket, its network's, then the shared one or the reserve.
    public func take(_ origin: Origin) -> Decision {
        guard perSource.tryTake(source: origin.source) else { return .refusedForSource }
        if let perNetwork, !perNetwork.tryTake(source: origin.network) {
            perSource.giveBack(source: origin.source)
            return .refusedForNetwork
        }
        if global.tryTake() {
            reserve?.note(network: origin.network)
            return .allowed(.shared)
        }
        if let reserve, reserve.tryTake(network: origin.network) { return .allowed(.reserve) }
        perSource.giveBack(source: origin.source)
        perNetwork?.giveBack(source: origin.network)
        return .refusedGlobally
    }

    /// Gives back an attempt whose guess was right, or that got no verdict: only wrong guesses count.
    public func giveBack(_ origin: Origin, pool: Pool) {
        perSource.giveBack(source: origin.source)
        perNetwork?.giveBack(source: origin.network)
        if pool == .shared { global.giveBack() }
        reserve?.giveBack(network: origin.network, token: pool == .reserve)
    }
}
