/// Where the previous runs left off: the keys they put into an hour's file, the keys still waiting, and the last
/// complete hour they planned.
///
/// A published hour is final. Each run plans only the hours after `plannedThroughHour`, with the keys no earlier
/// run has placed. Re-planning from all keys would move keys between hours whose files exist already: while hours
/// hold fewer keys than the shifting threshold, a key leaving the lookback window shifts every later group, so a
/// new file would repeat keys or skip some.
public struct PublicationState: Sendable {
    /// Keys already placed, by hour (hours since the epoch).
    public var published: [Int64: [ExportableKey]]
    /// Keys no run has placed yet: not yet expired, held back by the shifting threshold, or stored after the run
    /// that planned their hour (a submission that committed just after the hour's run).
    public var unpublished: [ExportableKey]
    /// The last complete hour an earlier run planned; nil before the first run.
    public var plannedThroughHour: Int64?

    public init(published: [Int64: [ExportableKey]] = [:], unpublished: [ExportableKey] = [], plannedThroughHour: Int64? = nil) {
        self.published = published
        self.unpublished = unpublished
        self.plannedThroughHour = plannedThroughHour
    }

    public var keyCount: Int { published.values.reduce(unpublished.count) { $0 + $1.count } }
}
