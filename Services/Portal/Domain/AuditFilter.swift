import Foundation

/// The audit page's filters (`GET /audit?actor=&action=&from=&to=&page=`): an officer's name, an action, a range of
/// whole UTC days (`YYYY-MM-DD`, both inclusive), and a page of `pageSize` rows, newest first.
public struct AuditFilter: Sendable, Equatable {
    public static let pageSize = 50
    /// Offset paging: a page past this is refused rather than making the database skip millions of rows.
    public static let maximumPage = 10_000
    /// The rows one CSV download holds at most, the newest: a year of a large authority's issuance.
    public static let exportLimit = 100_000

    public var actor: String?
    public var action: String?
    /// Unix seconds: the first instant shown.
    public var from: Int64?
    /// Unix seconds: the first instant not shown (the day after `to`).
    public var until: Int64?
    /// 1-based.
    public var page: Int

    public init(actor: String? = nil, action: String? = nil, from: Int64? = nil, until: Int64? = nil, page: Int = 1) {
        self.actor = actor
        self.action = action
        self.from = from
        self.until = until
        self.page = page
    }

    public enum Problem: Error, Sendable, Equatable {
        case actor, action, date, page
    }

    /// The filter the query's fields describe; an empty field filters nothing.
    public static func parse(actor: String?, action: String?, from: String?, to: String?, page: String?) throws(Problem) -> AuditFilter {
        var filter = AuditFilter()
        if let actor = nonEmpty(actor) {
            // Local names have their own form, but an OIDC provider's names can be anything printable.
            guard actor.unicodeScalars.count <= 256, !actor.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw .actor
            }
            filter.actor = actor
        }
        if let action = nonEmpty(action) {
            guard OfficerAction.filterValues.contains(action) else { throw .action }
            filter.action = action
        }
        if let from = nonEmpty(from) {
            guard let day = dayStart(from) else { throw .date }
            filter.from = day
        }
        if let to = nonEmpty(to) {
            guard let day = dayStart(to) else { throw .date }
            filter.until = day + 86400
        }
        if let page = nonEmpty(page) {
            guard let number = Int(page), (1...maximumPage).contains(number) else { throw .page }
            filter.page = number
        }
        return filter
    }

    public var offset: Int { (page - 1) * Self.pageSize }

    /// `YYYY-MM-DD` as the Unix second its UTC day starts; nil for anything else (`2026-02-30` too).
    static func dayStart(_ text: String) -> Int64? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]), year >= 1970
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day)
        guard components.isValidDate(in: calendar), let date = calendar.date(from: components) else { return nil }
        return Int64(date.timeIntervalSince1970)
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        return text
    }
}
