import ExposureCore

/// A refusal by one of verification's limits, counted in the hour's tally (`verification_rate_limited_last_hour`).
struct RateLimitTally {
    let tally: HourlyTally
    let limit: String

    func increment() {
        tally.count(.init("verification_rate_limited_last_hour", [("limit", limit)]))
    }
}
