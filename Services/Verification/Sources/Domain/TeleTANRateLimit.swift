import Foundation

/// The global limit on teleTAN issuance (1000 per hour by default), shared by every replica through the
/// database count of recent teleTANs.
public struct TeleTANRateLimit: Sendable, Equatable {
    public enum Decision: Equatable, Sendable {
        case allowed
        /// Allowed, but 80 % of the limit is used: operators are warned before officers are refused.
        case allowedNearLimit
        case refused
    }

    public var limit: Int
    public var window: Duration

    public init(limit: Int = 1000, window: Duration = .seconds(3600)) {
        self.limit = limit
        self.window = window
    }

    public func decide(issuedInWindow count: Int) -> Decision {
        if count >= limit { return .refused }
        if (count + 1) * 5 >= limit * 4 { return .allowedNearLimit }
        return .allowed
    }

    public func windowStart(now: Date) -> Date { now.addingTimeInterval(-window.seconds) }
}
