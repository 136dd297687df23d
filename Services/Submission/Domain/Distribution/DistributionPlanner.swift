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

    /// The files to write: every key file of the window but the published ones the run was told of.
    public var bundles: [Bundle]
    /// The key files left out of `bundles` because they are published.
    public var keptFiles: Int
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

    /// A key file of the window: a day's or an hour's, and the hours whose placed keys it holds.
    public struct KeyFile: Sendable, Equatable {
        public var path: String
        public var hours: Range<Int64>
        /// False for the running hour (development): later runs rewrite its file.
        public var isComplete: Bool
        public var isHourly: Bool { hours.count == 1 }
    }

    /// The key files of the window at `now`: a daily file for each complete day of the daily window, then hourly
    /// files for yesterday and today up to the last hour published.
    public func keyFiles(now: Date) -> [KeyFile] {
        let clock = Window(now: now, dailyRetentionDays: dailyRetentionDays, includeIncompleteHours: includeIncompleteHours)
        var files = (clock.firstDay..<clock.today).map { day in
            KeyFile(path: layout.day(ExportTreeLayout.date(day: day)), hours: day * 24..<(day + 1) * 24, isComplete: true)
        }
        for day in [clock.today - 1, clock.today] {
            let date = ExportTreeLayout.date(day: day)
            for hour in clock.hours(of: day) {
                files.append(KeyFile(path: layout.hour(date, Int(hour % 24)), hours: hour..<hour + 1, isComplete: hour < clock.currentHour))
            }
        }
        return files
    }

    /// The key files at `now` that no later run changes and that are published already (`exists`): every day's
    /// file, and every complete hour's that an earlier run planned. A run leaves them as they are, so it needs not
    /// read their keys. Before the first run (`plannedThroughHour` nil) every file found is kept, as an earlier
    /// version of the service published it.
    public func publishedFiles(now: Date, plannedThroughHour: Int64?, exists: (String) -> Bool) -> Set<String> {
        Set(keptFileCandidates(now: now, plannedThroughHour: plannedThroughHour).filter(exists))
    }

    /// The paths `publishedFiles` asks `exists` about, for a caller that looks them up asynchronously (an object
    /// store): the complete key files no later run changes.
    public func keptFileCandidates(now: Date, plannedThroughHour: Int64?) -> [String] {
        keyFiles(now: now).filter { file in
            // An hour after the planned one is open: a file there is the running hour's, written in development
            // mode, which this run replaces.
            file.isComplete && !(file.isHourly && plannedThroughHour.map { file.hours.lowerBound > $0 } == true)
        }.map(\.path)
    }

    /// The hours whose placed keys a run needs: those of every key file it writes, that is every file of the window
    /// but the `published` ones. Consecutive hours are merged. The keys no run has placed are read as well, always.
    public func hoursToRead(now: Date, publishedFiles published: Set<String>) -> [Range<Int64>] {
        var ranges: [Range<Int64>] = []
        for file in keyFiles(now: now).sorted(by: { $0.hours.lowerBound < $1.hours.lowerBound }) where !published.contains(file.path) {
            if let last = ranges.last, file.hours.lowerBound <= last.upperBound {
                ranges[ranges.count - 1] = last.lowerBound..<max(last.upperBound, file.hours.upperBound)
            } else {
                ranges.append(file.hours)
            }
        }
        return ranges
    }

    /// Plans the hours after `state.plannedThroughHour` from the keys not yet placed, and lists the files of the
    /// whole window, whose earlier hours keep the keys earlier runs placed in them. The `publishedFiles` are left
    /// out of the bundles: the state need not hold their keys.
    public func plan(_ state: PublicationState, now: Date, publishedFiles published: Set<String> = []) -> DistributionPlan {
        let clock = Window(now: now, dailyRetentionDays: dailyRetentionDays, includeIncompleteHours: includeIncompleteHours)
        let windowStart = clock.firstDay * 24
        let firstOpenHour = max(windowStart, (state.plannedThroughHour ?? windowStart - 1) + 1)
        // Empty when every hour is planned (or a clock went back since the last run).
        let openHours = firstOpenHour..<max(firstOpenHour, clock.lastHour + 1)

        var keysByHour: [Int64: [ExportableKey]] = [:]
        var futureKeys = 0
        for key in state.unpublished {
            let hour = expiry.earliestHour(of: key)
            if hour <= clock.lastHour { keysByHour[hour, default: []].append(key) } else { futureKeys += 1 }
        }
        // Keys first publishable before the open hours (a late commit, a run that was skipped) wait from their start.
        let (shifted, pending) = shifting.distribute(keysByHour, over: openHours)

        var keysOfHour = state.published
        var placements: [(hour: Int64, keys: [ExportableKey])] = []
        for (hour, keys) in shifted where !keys.isEmpty {
            // Shares the array with `placements` rather than copying it (an open hour has no placed keys).
            keysOfHour[hour] = keysOfHour[hour].map { $0 + keys } ?? keys
            // The running hour (development) is planned afresh by every run until it is over.
            if hour < clock.currentHour { placements.append((hour, keys)) }
        }
        let replacesRunningHourFiles = state.plannedThroughHour != nil

        var bundles: [DistributionPlan.Bundle] = []
        var keptFiles = 0
        for file in keyFiles(now: now) {
            if published.contains(file.path) {
                keptFiles += 1
                continue
            }
            var keys: [ExportableKey] = []
            if file.isHourly {
                keys = keysOfHour[file.hours.lowerBound] ?? []
            } else {
                for hour in file.hours { keys += keysOfHour[hour] ?? [] }
            }
            bundles.append(.init(
                path: file.path, start: UInt64(file.hours.lowerBound * 3600), end: UInt64(file.hours.upperBound * 3600),
                keys: keys, isComplete: file.isComplete,
                replacesExistingFile: file.isHourly && replacesRunningHourFiles && openHours.contains(file.hours.lowerBound)
            ))
        }

        var indexes: [(String, [UInt8])] = []
        let hourlyDates = [clock.today - 1, clock.today].map { ExportTreeLayout.date(day: $0) }
        for (day, date) in zip([clock.today - 1, clock.today], hourlyDates) {
            indexes.append((layout.hourIndex(date), Self.json(clock.hours(of: day).map { Int($0 % 24) })))
        }
        let publishedDates = (clock.firstDay..<clock.today).map { ExportTreeLayout.date(day: $0) }
        indexes.append((layout.versionIndex, Self.json(["v1"])))
        indexes.append((layout.countryIndex, Self.json([layout.country])))
        indexes.append((layout.dateIndex, Self.json(publishedDates)))
        return DistributionPlan(
            bundles: bundles, keptFiles: keptFiles, indexes: indexes, publishedDates: publishedDates,
            hourlyDates: hourlyDates, pendingKeys: pending.count + futureKeys, placements: placements,
            plannedThroughHour: max(state.plannedThroughHour ?? .min, clock.currentHour - 1)
        )
    }

    /// The days and hours a run at `now` covers.
    private struct Window {
        public let currentHour: Int64
        public let today: Int64
        public let firstDay: Int64
        /// Only complete hours are published; the current one is still filling.
        public let lastHour: Int64

        public init(now: Date, dailyRetentionDays: Int64, includeIncompleteHours: Bool) {
            currentHour = Int64(now.timeIntervalSince1970) / 3600
            today = currentHour / 24
            firstDay = today - dailyRetentionDays
            lastHour = includeIncompleteHours ? currentHour : currentHour - 1
        }

        /// The hours of `day` with a file: all of them up to the last one published.
        public func hours(of day: Int64) -> Range<Int64> {
            day * 24..<max(day * 24, min((day + 1) * 24, lastHour + 1))
        }
    }

    public static func json(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return Array((try? encoder.encode(value)) ?? Data("[]".utf8))
    }
}
