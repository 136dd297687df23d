import ExposureRules
import Foundation

/// The limits on teleTAN issuance per window: for everyone together (1000 per hour by default) and per officer (120
/// per hour, one every 30 s on average, as the portal allows), shared by every replica through counters in the
/// database (`TeleTANStore.issue`). Windows are fixed (aligned to multiples of the window since 1970), so that
/// one counter row per window decides: at a window's edge up to twice a limit can be issued within a short time.
public struct TeleTANRateLimit: Sendable, Equatable {
    public enum Decision: Equatable, Sendable {
        case allowed
        /// Allowed, but 80 % of the limit is used: operators are warned before officers are refused.
        case allowedNearLimit
        case refused
    }

    public var limit: Int
    public var perOfficer: Int
    public var window: Duration

    public init(limit: Int = 1000, perOfficer: Int = 120, window: Duration = .seconds(3600)) {
        self.limit = limit
        self.perOfficer = perOfficer
        self.window = window
    }

    public func decide(issuedInWindow count: Int) -> Decision {
        if count >= limit { return .refused }
        if (count + 1) * 5 >= limit * 4 { return .allowedNearLimit }
        return .allowed
    }

    /// The start of the fixed window `now` falls in, in seconds since 1970.
    public func windowStart(now: Date) -> Int64 {
        let length = max(1, Int64(window.seconds))
        let seconds = now.epochSeconds
        return seconds - ((seconds % length) + length) % length
    }

    /// The counter of one officer: a hash of the token's issuer and subject, so the database keeps no officer's name
    /// and two providers' subjects never share a counter.
    public static func officerScope(issuer: String, subject: String) -> String {
        "officer:" + SecretHash.sha256Hex(Array(issuer.utf8) + [0] + Array(subject.utf8))
    }

    public static let globalScope = "global"
}
