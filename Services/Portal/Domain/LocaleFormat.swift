/// How a page in one language writes numbers, dates and times (`Language.format`): grouped digits (`12,345`,
/// `12.345`, `12 345`), dates as its readers write them (`Nov 29, 2026`, `29.11.2026`, `29 nov. 2026`) and times in
/// 24 hours with their zone, `UTC`, named (the services count and keep time in UTC; an officer's own zone is not known).
///
/// The patterns are those of CLDR for the languages the portal speaks, written out here rather than asked of the
/// platform, so that a page reads the same on every machine and its tests can say exactly what it shows.
public struct LocaleFormat: Sendable {
    enum DateStyle: Sendable {
        /// `Nov 29, 2026`
        case monthNameDayYear
        /// `29.11.2026`
        case dayMonthYearDotted
        /// `29 nov. 2026`
        case dayMonthNameYear
        /// `2026-11-29`
        case iso
    }

    let groupingSeparator: String
    /// Digits a number needs before it is grouped at all: Polish writes `1234` but `12 345`.
    let minimumGroupingDigits: Int
    let dateStyle: DateStyle
    /// Abbreviated month names, January first.
    let months: [String]
    /// Between the hour and the minute: `14:05`, or Canadian French's `14 h 05`.
    let timeSeparator: String

    /// Machine-readable forms: what a page's `datetime` attributes and the downloads use.
    public static let iso = LocaleFormat(
        groupingSeparator: "", minimumGroupingDigits: 1, dateStyle: .iso, months: [], timeSeparator: ":")

    /// `12345` → `12,345` (in English).
    public func number(_ value: Int64) -> String {
        let digits = String(value.magnitude)
        let sign = value < 0 ? "-" : ""
        guard !groupingSeparator.isEmpty, digits.count >= 3 + minimumGroupingDigits else { return sign + digits }
        var groups: [Substring] = []
        var end = digits.endIndex
        while end > digits.startIndex {
            let start = digits.index(end, offsetBy: -3, limitedBy: digits.startIndex) ?? digits.startIndex
            groups.insert(digits[start..<end], at: 0)
            end = start
        }
        return sign + groups.joined(separator: groupingSeparator)
    }

    /// The day `day` (days since 1970-01-01): `Nov 29, 2026`.
    public func date(day: Int64) -> String {
        let (year, month, dayOfMonth) = Self.civil(day)
        switch dateStyle {
        case .monthNameDayYear: return "\(months[month - 1]) \(dayOfMonth), \(year)"
        case .dayMonthYearDotted: return "\(Self.two(dayOfMonth)).\(Self.two(month)).\(year)"
        case .dayMonthNameYear: return "\(dayOfMonth) \(months[month - 1]) \(year)"
        case .iso: return "\(year)-\(Self.two(month))-\(Self.two(dayOfMonth))"
        }
    }

    /// The day without its year, under a chart's Monday: `Nov 16`.
    public func dayAndMonth(day: Int64) -> String {
        let (_, month, dayOfMonth) = Self.civil(day)
        switch dateStyle {
        case .monthNameDayYear: return "\(months[month - 1]) \(dayOfMonth)"
        case .dayMonthYearDotted: return "\(Self.two(dayOfMonth)).\(Self.two(month))."
        case .dayMonthNameYear: return "\(dayOfMonth) \(months[month - 1])"
        case .iso: return "\(Self.two(month))-\(Self.two(dayOfMonth))"
        }
    }

    /// The month of `day`, under a long chart's first days of months: `Nov 2026`.
    public func month(day: Int64) -> String {
        let (year, month, _) = Self.civil(day)
        return dateStyle == .iso ? "\(year)-\(Self.two(month))" : "\(months[month - 1]) \(year)"
    }

    /// A moment to the minute, with its zone: `Nov 29, 2026, 14:05 UTC`.
    public func minute(epochSeconds: Int64) -> String {
        let day = Self.floorDivide(epochSeconds, 86400)
        let secondOfDay = epochSeconds - day * 86400
        let time = "\(Self.two(Int(secondOfDay / 3600)))\(timeSeparator)\(Self.two(Int(secondOfDay % 3600 / 60)))"
        return dateStyle == .iso ? "\(date(day: day)) \(time) UTC" : "\(date(day: day)), \(time) UTC"
    }

    /// Whether `day` is the first of its month.
    public static func isFirstOfMonth(day: Int64) -> Bool { civil(day).day == 1 }

    /// Year, month (1–12) and day (1–31) of a count of days since 1970-01-01, in the proleptic Gregorian calendar
    /// (H. Hinnant's `civil_from_days`).
    static func civil(_ days: Int64) -> (year: Int64, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = floorDivide(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1)
        let month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
