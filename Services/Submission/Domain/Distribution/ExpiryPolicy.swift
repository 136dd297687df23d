/// A key may be published only once it can no longer be used to fake identifiers: `delay` after the end of its
/// validity (start interval × 10 min + rolling period × 10 min), rounded up to the next full hour, and never
/// before the hour it was submitted in.
public struct ExpiryPolicy: Sendable, Equatable {
    /// Minutes after the end of a key's validity (120 by default).
    public var delayMinutes: Int64

    public init(delayMinutes: Int64 = 120) {
        self.delayMinutes = delayMinutes
    }

    /// The first hour (hours since the epoch) in which the key may be published.
    public func earliestHour(of key: ExportableKey) -> Int64 {
        let validUntil = (Int64(key.rollingStartIntervalNumber) + Int64(key.rollingPeriod)) * 600
        let publishable = validUntil + delayMinutes * 60
        let expiryHour = (publishable + 3599) / 3600
        return max(expiryHour, key.submissionHour)
    }
}
