import ExposureRules

/// Which report type a published key may be revised to (design sheet enx.md, 3.4): a likely report to a confirmed
/// or a negative one, a user report to any test result; a key with no type is taken as likely. The same type again
/// changes nothing; a key is revised once.
public enum ENXReportTransition {
    public static func isAllowed(from old: ENXReportType?, to new: ENXReportType) -> Bool {
        switch old ?? .likely {
        case .likely: [.confirmed, .negative].contains(new)
        case .userReport: [.confirmed, .likely, .negative].contains(new)
        case .confirmed, .negative: false
        }
    }
}
