import ExposureCore
import Foundation

/// The CSV form of daily counts (RFC 4180): a header `day,figure,breakdown,count`, then one line per count.
public enum StatisticsCSV {
    public static let header = "day,figure,breakdown,count"

    public static func render(_ counts: [DailyCount]) -> String {
        lines([header] + counts.map { row([$0.day.description, $0.figure, $0.breakdown, String($0.count)]) })
    }

    /// Counts of several services in one file, with a first column `service` (the portal's download).
    public static func render(services: [(service: String, counts: [DailyCount])]) -> String {
        var rows = ["service," + header]
        for (service, counts) in services {
            rows += counts.map { row([service, $0.day.description, $0.figure, $0.breakdown, String($0.count)]) }
        }
        return lines(rows)
    }

    static func row(_ fields: [String]) -> String { CSVText.row(fields) }

    static func lines(_ rows: [String]) -> String { CSVText.lines(rows) }
}
