import Foundation

/// Limits attempts at guessing a secret a person types (a teleTAN): each source has its own bucket, and every
/// source together draws from one global bucket.
///
/// A token is taken from both before the secret is looked up and given back when the secret was right, so a burst of
/// concurrent guesses gets exactly as many lookups as tokens. The per-source bucket keeps one source from costing
/// anyone else a refusal: its allowance is smaller than the global one in both burst and rate (checked by the
/// configuration), so on its own it can never empty the global bucket. The global bucket bounds what many sources
/// together can try, which is what makes the chance of a hit computable (docs/security.md).
public final class GuessThrottle: Sendable {
    private let perSource: SourceRateLimiter
    private let global: TokenBucket

    public init(perSource: SourceRateLimiter, global: TokenBucket) {
        self.perSource = perSource
        self.global = global
    }

    public enum Decision: Hashable, Sendable {
        case allowed
        /// The source used its own allowance.
        case refusedForSource
        /// Every source together used the global allowance.
        case refusedGlobally
    }

    /// Takes one attempt for `source` (its rate-limit key), from its bucket and then the global one.
    public func take(source: some Collection<UInt8>) -> Decision {
        guard perSource.tryTake(source: source) else { return .refusedForSource }
        guard global.tryTake() else {
            perSource.giveBack(source: source)
            return .refusedGlobally
        }
        return .allowed
    }

    /// Gives back an attempt whose guess was right: only wrong guesses count.
    public func giveBack(source: some Collection<UInt8>) {
        perSource.giveBack(source: source)
        global.giveBack()
    }
}
