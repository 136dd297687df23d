import Foundation

/// A UTC day as the number of days since 1970-01-01, and its `YYYY-MM-DD` text: the key of every daily count
/// (`StatisticsDay`), and the symptom and test dates of the ENX family.
public struct UTCDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let number: Int64

    public init(number: Int64) {
        self.number = number
    }

    /// The UTC day `date` falls on.
    public init(of date: Date) {
        number = Int64((date.timeIntervalSince1970 / 86400).rounded(.down))
    }

    /// The day `YYYY-MM-DD` names; nil for any other text or a date that does not exist (2026-02-30).
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }),
              let year = Int64(parts[0]), let month = Int64(parts[1]), let day = Int64(parts[2]),
              (1...12).contains(month), day >= 1
        else { return nil }
        let candidate = Self.days(year: year, month: month, day: day)
        // A day past the month's end lands in the next month: the round trip tells.
        guard Self.civil(candidate) == (year, month, day) else { return nil }
        number = candidate
    }

    /// The UTC day `seconds` (Unix) fall in.
    public init(containing seconds: Int64) {
        number = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
    }

    public func adding(days: Int64) -> UTCDay { UTCDay(number: number + days) }

    /// Unix seconds of the day's first instant.
    public var midnight: Int64 { number * 86400 }

    /// The first instant of the day.
    public var start: Date { Date(timeIntervalSince1970: TimeInterval(number * 86400)) }

    public var description: String {
        let (year, month, day) = Self.civil(number)
        return String(format: "%04d-%02d-%02d", Int(year), Int(month), Int(day))
    }

    public static func < (lhs: UTCDay, rhs: UTCDay) -> Bool { lhs.number < rhs.number }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
    private static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day number (`civil_from_days`).
    private static func civil(_ number: Int64) -> (Int64, Int64, Int64) {
        let z = number + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
