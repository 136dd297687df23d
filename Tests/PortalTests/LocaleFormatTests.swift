import Foundation
import Testing
@testable import PortalDomain

/// Dates and numbers as each language's readers write them (issue #62), and the calendar beneath them checked day by
/// day against Foundation's.
@Suite struct LocaleFormatTests {
    /// 2026-11-29 14:05:09 UTC.
    static let moment: Int64 = 1_795_961_109
    static let day: Int64 = 20_786

    @Test func eachLanguageWritesNumbersItsOwnWay() {
        #expect(Language.en.format.number(1_234_567) == "1,234,567")
        #expect(Language.de.format.number(1_234_567) == "1.234.567")
        #expect(Language.fr.format.number(12_345) == "12\u{00A0}345")
        // Polish groups from five digits on.
        #expect(Language.pl.format.number(1234) == "1234" && Language.pl.format.number(12_345) == "12\u{00A0}345")
        #expect(Language.en.format.number(999) == "999" && Language.en.format.number(1000) == "1,000" && Language.en.format.number(0) == "0")
        #expect(Language.de.format.number(-12_345) == "-12.345")
        #expect(LocaleFormat.iso.number(1_234_567) == "1234567")
    }

    @Test func eachLanguageWritesDatesAndTimesItsOwnWay() {
        #expect(Language.en.format.date(day: Self.day) == "Nov 29, 2026")
        #expect(Language.de.format.date(day: Self.day) == "29.11.2026")
        #expect(Language.fr.format.date(day: Self.day) == "29 nov. 2026")
        #expect(Language.pl.format.date(day: Self.day) == "29.11.2026")
        #expect(LocaleFormat.iso.date(day: Self.day) == "2026-11-29")
        #expect(Language.en.format.minute(epochSeconds: Self.moment) == "Nov 29, 2026, 14:05 UTC")
        #expect(Language.de.format.minute(epochSeconds: Self.moment) == "29.11.2026, 14:05 UTC")
        #expect(Language.fr.format.minute(epochSeconds: Self.moment) == "29 nov. 2026, 14\u{00A0}h\u{00A0}05 UTC")
        #expect(LocaleFormat.iso.minute(epochSeconds: Self.moment) == "2026-11-29 14:05 UTC")
        #expect(Language.de.format.dayAndMonth(day: Self.day) == "29.11." && Language.en.format.dayAndMonth(day: Self.day) == "Nov 29")
        #expect(Language.de.format.month(day: Self.day) == "Nov. 2026" && Language.fr.format.month(day: Self.day - 28) == "nov. 2026")
        #expect(Language.pl.format.month(day: Self.day) == "lis 2026")
    }

    /// Every day from 1900 to 2200 (leap years, centuries, 2000) against Foundation's Gregorian calendar in UTC.
    @Test func theCalendarAgreesWithFoundationsForThreeCenturies() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        for day in Int64(-25_567)...Int64(84_000) {
            let parts = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: TimeInterval(day * 86400)))
            let civil = LocaleFormat.civil(day)
            guard civil.year == Int64(parts.year!) && civil.month == parts.month! && civil.day == parts.day! else {
                Issue.record("day \(day): \(civil) but Foundation says \(parts)")
                return
            }
        }
        #expect(LocaleFormat.isFirstOfMonth(day: 20_788) && !LocaleFormat.isFirstOfMonth(day: Self.day))
    }
}
