import ExposureRules
import Foundation

/// The limits on the codes one health-authority system issues through the issuer listener (`/new-key-claim`,
/// `/generateCode`, `/generateCodesBatch`): at most `perHour` codes in a clock hour and `perDay` in a UTC day, counted
/// per issuer in the database (`teletan_issuance_counts`, the rows of the teleTAN limits), so that every replica
/// shares them. A call that would pass either limit issues nothing. A batch counts each of its codes.
public struct IssuerRateLimit: Sendable, Equatable {
    public var perHour: Int
    public var perDay: Int

    /// 1,000 an hour (one full `generateCodesBatch`) and 5,000 a day by default.
    public init(perHour: Int = 1000, perDay: Int = 5000) {
        self.perHour = perHour
        self.perDay = perDay
    }

    /// One of the two counters of an issuer: its scope, limit and the start of its current window (unix seconds).
    public struct Counter: Sendable, Equatable {
        public let scope: String
        public let limit: Int
        public let windowStart: Int64
        /// When the window ends: a refused issuer may try again then.
        public let windowEnd: Int64

        /// A counter of the clock hour (UTC) `now` falls in.
        public init(scope: String, limit: Int, hourOf now: Date) {
            self.init(scope: scope, limit: limit, length: 3600, now: now)
        }

        /// A counter of the UTC day `now` falls in.
        public init(scope: String, limit: Int, dayOf now: Date) {
            self.init(scope: scope, limit: limit, length: 86400, now: now)
        }

        private init(scope: String, limit: Int, length: Int64, now: Date) {
            let seconds = now.epochSeconds
            let start = seconds - ((seconds % length) + length) % length
            self.scope = scope
            self.limit = limit
            windowStart = start
            windowEnd = start + length
        }
    }

    /// The issuer's counters at `now`: the hour's, then the day's (always in this order, as every counting
    /// transaction takes its rows in one order).
    public func counters(issuer name: String, now: Date) -> [Counter] {
        [Counter(scope: "issuer-hour:\(name)", limit: perHour, hourOf: now), Counter(scope: "issuer-day:\(name)", limit: perDay, dayOf: now)]
    }
}
