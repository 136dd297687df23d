import Foundation

/// The allowances of wrong guesses at a secret a person types (`GuessThrottle`), each a burst and a refill per hour,
/// read from `<PREFIX>_…` settings: per client address (`SOURCE_FAILURE_BURST`, `SOURCE_FAILURES_PER_HOUR`), per network
/// (`NETWORK_FAILURE_BURST`, `NETWORK_FAILURES_PER_HOUR`), for all clients together (`FAILURE_BURST`,
/// `FAILURES_PER_HOUR`) and the reserve for networks without a wrong guess (`RESERVE_BURST`, `RESERVE_PER_HOUR`). All in
/// each replica. Start-up refuses a source allowance above its network's, or a network's that reaches the shared one:
/// one network alone must never empty the shared bucket (docs/security.md).
public struct GuessLimits: Sendable, Equatable {
    public struct Allowance: Sendable, Equatable {
        public var burst: Int
        public var perHour: Int

        public init(burst: Int, perHour: Int) {
            self.burst = burst
            self.perHour = perHour
        }

        /// The most lookups it pays for in `hours` from full: its burst and its refill.
        public func lookups(inHours hours: Int) -> Int { burst + perHour * hours }
    }

    public var source: Allowance
    public var network: Allowance
    public var shared: Allowance
    public var reserve: Allowance

    public init(source: Allowance, network: Allowance, shared: Allowance, reserve: Allowance) {
        self.source = source
        self.network = network
        self.shared = shared
        self.reserve = reserve
    }

    /// The most wrong guesses looked up per replica and day, from every client together: the shared bucket's and the
    /// reserve's, each from full (docs/security.md).
    public var lookupsPerDay: Int { shared.lookups(inHours: 24) + reserve.lookups(inHours: 24) }

    /// Reads `<prefix>_…` over `defaults`, and checks that the tiers nest.
    public init(_ settings: Settings, prefix: String, defaults: GuessLimits) throws(ConfigurationError) {
        func allowance(_ burst: String, _ perHour: String, _ fallback: Allowance) throws(ConfigurationError) -> Allowance {
            Allowance(
                burst: try settings.int("\(prefix)_\(burst)", default: fallback.burst, in: 1...1_000_000),
                perHour: try settings.int("\(prefix)_\(perHour)", default: fallback.perHour, in: 1...100_000_000)
            )
        }
        self.init(
            source: try allowance("SOURCE_FAILURE_BURST", "SOURCE_FAILURES_PER_HOUR", defaults.source),
            network: try allowance("NETWORK_FAILURE_BURST", "NETWORK_FAILURES_PER_HOUR", defaults.network),
            shared: try allowance("FAILURE_BURST", "FAILURES_PER_HOUR", defaults.shared),
            reserve: try allowance("RESERVE_BURST", "RESERVE_PER_HOUR", defaults.reserve)
        )
        guard source.burst <= network.burst else {
            throw ConfigurationError(
                variable: "\(prefix)_SOURCE_FAILURE_BURST", reason: "must be at most \(prefix)_NETWORK_FAILURE_BURST (\(network.burst)), got \(source.burst)")
        }
        guard source.perHour <= network.perHour else {
            throw ConfigurationError(
                variable: "\(prefix)_SOURCE_FAILURES_PER_HOUR", reason: "must be at most \(prefix)_NETWORK_FAILURES_PER_HOUR (\(network.perHour)), got \(source.perHour)")
        }
        guard network.burst < shared.burst else {
            throw ConfigurationError(
                variable: "\(prefix)_NETWORK_FAILURE_BURST", reason: "must be below \(prefix)_FAILURE_BURST (\(shared.burst)), got \(network.burst)")
        }
        guard network.perHour <= shared.perHour else {
            throw ConfigurationError(
                variable: "\(prefix)_NETWORK_FAILURES_PER_HOUR", reason: "must be at most \(prefix)_FAILURES_PER_HOUR (\(shared.perHour)), got \(network.perHour)")
        }
    }

    /// A throttle with these allowances, its sources and networks keyed under random keys of its own.
    public func makeThrottle(clock: any WallClock, random: any RandomSource) -> GuessThrottle {
        func perSecond(_ allowance: Allowance) -> Double { Double(allowance.perHour) / 3600 }
        return GuessThrottle(
            perSource: SourceRateLimiter(capacity: source.burst, refillPerSecond: perSecond(source), clock: clock, random: random),
            perNetwork: SourceRateLimiter(capacity: network.burst, refillPerSecond: perSecond(network), clock: clock, random: random),
            global: TokenBucket(capacity: shared.burst, refillPerSecond: perSecond(shared), clock: clock),
            reserve: GuessReserve(capacity: reserve.burst, refillPerSecond: perSecond(reserve), clock: clock, random: random)
        )
    }
}

extension GuessLimits {
    /// teleTANs (`TELETAN_…`): 14,500 wrong guesses a day per replica at most, as before the reserve
    /// (docs/security.md, "Guess probability of teleTANs per day").
    public static let teleTANs = GuessLimits(
        source: .init(burst: 10, perHour: 60), network: .init(burst: 20, perHour: 120),
        shared: .init(burst: 100, perHour: 500), reserve: .init(burst: 1_200, perHour: 50)
    )

    /// One kind of one-time code (`ONE_TIME_CODE_…`): 2,910 wrong guesses a day per replica and kind at most, as before
    /// (docs/security.md, "One-time codes of other app families").
    public static let oneTimeCodes = GuessLimits(
        source: .init(burst: 5, perHour: 30), network: .init(burst: 10, perHour: 60),
        shared: .init(burst: 30, perHour: 60), reserve: .init(burst: 1_200, perHour: 10)
    )
}
