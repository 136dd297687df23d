import Foundation

/// One stored count.
public struct DailyCount: Sendable, Hashable {
    public let day: StatisticsDay
    public let figure: String
    public let breakdown: String
    public let count: Int64

    public init(day: StatisticsDay, figure: String, breakdown: String, count: Int64) {
        self.day = day
        self.figure = figure
        self.breakdown = breakdown
        self.count = count
    }
}
