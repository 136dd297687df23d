/// Keys wait until enough have accumulated to hide individuals: an hour whose pending keys (its own plus those
/// shifted from earlier hours) number fewer than `threshold` is published empty, and its keys move on to the
/// next hour.
public struct ShiftingPolicy: Sendable, Equatable {
    public var threshold: Int

    public init(threshold: Int = 140) {
        self.threshold = threshold
    }

    /// Assigns keys to hours. `keysByHour` maps an hour to the keys first publishable in it; keys of hours before
    /// `hours` are pending from its start. The result has an entry (possibly empty) for every hour in `hours`, in
    /// order. Keys still pending after the last hour are returned separately: a later run publishes them.
    public func distribute(_ keysByHour: [Int64: [ExportableKey]], over hours: Range<Int64>) -> (published: [(hour: Int64, keys: [ExportableKey])], pending: [ExportableKey]) {
        var pending: [ExportableKey] = keysByHour.filter { $0.key < hours.lowerBound }.flatMap(\.value)
        var published: [(Int64, [ExportableKey])] = []
        published.reserveCapacity(hours.count)
        for hour in hours {
            if let keys = keysByHour[hour] { pending.append(contentsOf: keys) }
            if pending.count >= threshold {
                published.append((hour, pending))
                pending = []
            } else {
                published.append((hour, []))
            }
        }
        return (published, pending)
    }
}
