/// The test types of Google's verification server, which become the report type of an ENX certificate and of the keys
/// published with it (docs/enx.md). A code is issued with one; a phone says which it accepts.
public enum ENXReportType: String, Sendable, CaseIterable, Comparable {
    case confirmed
    case likely
    case negative
    case userReport = "user-report"

    /// The types an `/api/verify` request's `accept` list admits, as the reference expands it: each value admits the
    /// types it names and every more certain one (`likely` admits `confirmed` too; `negative` admits all three test
    /// results; `user-report` admits `confirmed`). Values are matched without regard to case; a missing or empty list
    /// admits every type. Nil when a value is none of the four, which the reference refuses before it looks the code up.
    public static func accepted(by accept: [String]?) -> Set<ENXReportType>? {
        guard let accept, !accept.isEmpty else { return Set(allCases) }
        var admitted: Set<ENXReportType> = []
        for value in accept {
            switch value.lowercased() {
            case "confirmed": admitted.insert(.confirmed)
            case "likely": admitted.formUnion([.confirmed, .likely])
            case "negative": admitted.formUnion([.confirmed, .likely, .negative])
            case "user-report": admitted.formUnion([.confirmed, .userReport])
            default: return nil
            }
        }
        return admitted
    }

    /// Ordered as `allCases`, so that sets print the same way every time.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
