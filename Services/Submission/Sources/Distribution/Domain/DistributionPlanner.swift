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
    }

    public var bundles: [Bundle]
    /// JSON index files: path and content.
    public var indexes: [(path: String, json: [UInt8])]
    /// Dates (`yyyy-MM-dd`) whose daily file is published, and whose hourly files are kept.
    public var publishedDates: [String]
    public var hourlyDates: [String]
    /// Keys held back by the shifting policy for a later run.
    public var pendingKeys: Int
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

    public func plan(keys: [ExportableKey], now: Date) -> DistributionPlan {
        let currentHour = Int64(now.timeIntervalSince1970) / 3600
        let today = currentHour / 24
        let firstDay = today - dailyRetentionDays
        // Only complete hours are published; the current one is still filling.
        let lastHour = includeIncompleteHours ? currentHour : currentHour - 1
        let hours = (firstDay * 24)...lastHour

        var keysByHour: [Int64: [ExportableKey]] = [:]
        for key in keys {
            let hour = expiry.earliestHour(of: key)
            if hour <= lastHour { keysByHour[hour, default: []].append(key) }
        }
        let (published, pending) = shifting.distribute(keysByHour, over: hours)
        let futureKeys = keys.count - keysByHour.values.reduce(0) { $0 + $1.count }

        var bundles: [DistributionPlan.Bundle] = []
        var hourlyDates: [String] = []
        var indexes: [(String, [UInt8])] = []

        // Daily files: every complete day of the window.
        var byDay: [Int64: [ExportableKey]] = [:]
        for (hour, hourKeys) in published where !hourKeys.isEmpty { byDay[hour / 24, default: []].append(contentsOf: hourKeys) }
        let days = Array(firstDay..<today)
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
            var hoursOfDay: [Int] = []
            for (hour, hourKeys) in published where hour / 24 == day {
                let hourOfDay = Int(hour % 24)
                hoursOfDay.append(hourOfDay)
                bundles.append(.init(
                    path: layout.hour(date, hourOfDay), start: UInt64(hour * 3600), end: UInt64((hour + 1) * 3600),
                    keys: hourKeys, isComplete: hour < currentHour
                ))
            }
            indexes.append((layout.hourIndex(date), Self.json(hoursOfDay)))
        }
        let publishedDates = days.map { ExportTreeLayout.date(day: $0) }
        indexes.append((layout.versionIndex, Self.json(["v1"])))
        indexes.append((layout.countryIndex, Self.json([layout.country])))
        indexes.append((layout.dateIndex, Self.json(publishedDates)))
        return DistributionPlan(
            bundles: bundles, indexes: indexes, publishedDates: publishedDates, hourlyDates: hourlyDates,
            pendingKeys: pending.count + futureKeys
        )
    }

    static func json(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return Array((try? encoder.encode(value)) ?? Data("[]".utf8))
    }
}
