import Foundation

/// What one distribution run publishes, decided from the stored keys and the time alone (no I/O), so that every
/// rule of the contract can be tested directly.
public struct DistributionPlan: Sendable {
    /// A key file to publish: an hour or a day, possibly split into several batches.
    public struct Bundle: Sendable {
        public var path: String
        public var start: UInt64
        public var end: UInt64
        public var keys: [ExportableKey]
        /// False for the running hour when incomplete hours are included (development): such a file is rewritten
        /// by later runs; every complete one is immutable.
        public var isComplete: Bool = true
        /// An hour this run plans after an earlier run's plan. A file at its path can then only be the running
        /// hour's, written in development mode before the hour was over, and this complete version replaces it.
        public var replacesExistingFile: Bool = false
    }

    public var bundles: [Bundle]
    /// JSON index files: path and content.
    public var indexes: [(path: String, json: [UInt8])]
    /// Dates (`yyyy-MM-dd`) whose daily file is published, and whose hourly files are kept.
    public var publishedDates: [String]
    public var hourlyDates: [String]
    /// Keys held back by the shifting policy or their expiry, for a later run.
    public var pendingKeys: Int
    /// The keys this run places into complete hours. The run records them, with `plannedThroughHour`, before it
    /// writes a file.
    public var placements: [(hour: Int64, keys: [ExportableKey])]
    /// The last complete hour planned, this run included.
    public var plannedThroughHour: Int64
}

public struct DistributionPlanner: Sendable {
    public var layout: ExportTreeLayout
    public var expiry: ExpiryPolicy
    public var shifting: ShiftingPolicy
    /// Days with a daily file (14).
    public var dailyRetentionDays: Int64
    /// Also publish the running hour (development and demos only: it reveals keys before the hour is over).
    public var includeIncompleteHours: Bool = false

    public init(layout: ExportTreeLayout, expiry: ExpiryPolicy = .init(), shifting: ShiftingPolicy = .init(), dailyRetentionDays: Int64 = 14) {
        self.layout = layout
        self.expiry = expiry
        self.shifting = shifting
        self.dailyRetentionDays = dailyRetentionDays
    }

    /// Plans the hours after `state.plannedThroughHour` from the keys not yet placed, and lists the files of the
    /// whole window, whose earlier hours keep the keys earlier runs placed in them.
    public func plan(_ state: PublicationState, now: Date) -> DistributionPlan {
        let currentHour = Int64(now.timeIntervalSince1970) / 3600
        let today = currentHour / 24
        let firstDay = today - dailyRetentionDays
        // Only complete hours are published; the current one is still filling.
        let lastHour = includeIncompleteHours ? currentHour : currentHour - 1
        let windowStart = firstDay * 24
        let firstOpenHour = max(windowStart, (state.plannedThroughHour ?? windowStart - 1) + 1)
        // Empty when every hour is planned (or a clock went back since the last run).
        let openHours = firstOpenHour..<max(firstOpenHour, lastHour + 1)

        var keysByHour: [Int64: [ExportableKey]] = [:]
        var futureKeys = 0
        for key in state.unpublished {
            let hour = expiry.earliestHour(of: key)
            if hour <= lastHour { keysByHour[hour, default: []].append(key) } else { futureKeys += 1 }
        }
        // Keys first publishable before the open hours (a late commit, a run that was skipped) wait from their start.
        let (shifted, pending) = shifting.distribute(keysByHour, over: openHours)

        var keysOfHour = state.published
        var placements: [(hour: Int64, keys: [ExportableKey])] = []
        for (hour, keys) in shifted where !keys.isEmpty {
            // Shares the array with `placements` rather than copying it (an open hour has no placed keys).
            keysOfHour[hour] = keysOfHour[hour].map { $0 + keys } ?? keys
            // The running hour (development) is planned afresh by every run until it is over.
            if hour < currentHour { placements.append((hour, keys)) }
        }
        let replacesRunningHourFiles = state.plannedThroughHour != nil

        var bundles: [DistributionPlan.Bundle] = []
        var hourlyDates: [String] = []
        var indexes: [(String, [UInt8])] = []

        // Daily files: every complete day of the window.
        let days = Array(firstDay..<today)
        var byDay: [Int64: [ExportableKey]] = [:]
        for (hour, hourKeys) in keysOfHour where hour >= windowStart && hour / 24 < today {
            byDay[hour / 24, default: []].append(contentsOf: hourKeys)
        }
        for day in days {
            bundles.append(.init(
                path: layout.day(ExportTreeLayout.date(day: day)),
                start: UInt64(day * 86400), end: UInt64((day + 1) * 86400), keys: byDay[day] ?? []
            ))
        }
        // Hourly files: yesterday and today.
        for day in [today - 1, today] {
            let date = ExportTreeLayout.date(day: day)
            hourlyDates.append(date)
            let hours = Array(day * 24..<min((day + 1) * 24, lastHour + 1))
            for hour in hours {
                bundles.append(.init(
                    path: layout.hour(date, Int(hour % 24)), start: UInt64(hour * 3600), end: UInt64((hour + 1) * 3600),
                    keys: keysOfHour[hour] ?? [], isComplete: hour < currentHour,
                    replacesExistingFile: replacesRunningHourFiles && openHours.contains(hour)
                ))
            }
            indexes.append((layout.hourIndex(date), Self.json(hours.map { Int($0 % 24) })))
        }
        let publishedDates = days.map { ExportTreeLayout.date(day: $0) }
        indexes.append((layout.versionIndex, Self.json(["v1"])))
        indexes.append((layout.countryIndex, Self.json([layout.country])))
        indexes.append((layout.dateIndex, Self.json(publishedDates)))
        return DistributionPlan(
            bundles: bundles, indexes: indexes, publishedDates: publishedDates, hourlyDates: hourlyDates,
            pendingKeys: pending.count + futureKeys, placements: placements,
            plannedThroughHour: max(state.plannedThroughHour ?? .min, currentHour - 1)
        )
    }

    static func json(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return Array((try? encoder.encode(value)) ?? Data("[]".utf8))
    }
}
