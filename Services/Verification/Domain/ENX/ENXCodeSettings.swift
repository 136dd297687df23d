import ExposureRules

/// How a health authority's ENX codes are made and what it may issue: Google's verification server keeps these per
/// realm (docs/enx.md). The defaults are the reference's and the only ones an ENX realm may use, since ENX shows
/// the short code's length and the link's lifetime to the patient.
public struct ENXCodeSettings: Sendable, Equatable {
    /// Digits of the short code, read out or typed by the patient: 8 by default, at least 6.
    public var shortCodeLength: Int = 8
    /// Seconds the short code lives: 15 minutes by default, at most an hour.
    public var shortCodeLifetime: Int64 = 15 * 60
    /// Characters (a–z, 0–9) of the long code that the ENX link carries: 16 by default, at least 12.
    public var longCodeLength: Int = 16
    /// Seconds the long code lives: 24 hours by default, and at most.
    public var longCodeLifetime: Int64 = 24 * 3600
    /// Whether an issue request must give a symptom or a test date (the reference's default: yes).
    public var requireDate = true
    /// The test types its codes may carry: confirmed, likely and negative by default (user reports are opt-in).
    public var testTypes: Set<ENXReportType> = [.confirmed, .likely, .negative]
    /// How far back a symptom or test date may lie, in days.
    public var allowedDateAge: Int64 = 28

    public init() {}

    public static let shortCodeLengths = 6...20
    public static let shortCodeLifetimes: ClosedRange<Int64> = 60...3600
    public static let longCodeLengths = 12...64
    public static let longCodeLifetimes: ClosedRange<Int64> = 60...86400

    /// The first thing wrong with these settings; nil when they are valid.
    public var problem: String? {
        if !Self.shortCodeLengths.contains(shortCodeLength) { return "the short code has 6 to 20 digits." }
        if !Self.shortCodeLifetimes.contains(shortCodeLifetime) { return "the short code lives 1 to 60 minutes." }
        if !Self.longCodeLengths.contains(longCodeLength) { return "the long code has 12 to 64 characters." }
        if !Self.longCodeLifetimes.contains(longCodeLifetime) { return "the long code lives 1 minute to 24 hours." }
        if longCodeLifetime < shortCodeLifetime { return "the long code lives at least as long as the short one." }
        if testTypes.isEmpty { return "at least one test type may be issued." }
        return nil
    }
}
