import ExposureRules

/// What the v1 key server makes of a certified upload's keys (design sheet enx.md, 3.4): their report type (the
/// certificate's), their transmission risk where the phone sent none, and each key's days since the onset of symptoms.
public enum ENXKeyReport {
    /// The `TemporaryExposureKey.ReportType` an export writes for a certificate's report type: confirmed →
    /// CONFIRMED_TEST (1), likely → CONFIRMED_CLINICAL_DIAGNOSIS (2), user-report → SELF_REPORT (3), negative →
    /// REVOKED (5).
    public static func exportReportType(_ type: ENXReportType) -> Int32 {
        switch type {
        case .confirmed: 1
        case .likely: 2
        case .userReport: 3
        case .negative: 5
        }
    }

    /// The transmission risk of a key sent with risk 0: 2 for a confirmed report, 4 for a likely one, 6 for a negative
    /// one, 0 for a user report.
    public static func transmissionRisk(sent: Int64, reportType: ENXReportType) -> Int64 {
        guard sent == 0 else { return sent }
        switch reportType {
        case .confirmed: return 2
        case .likely: return 4
        case .negative: return 6
        case .userReport: return 0
        }
    }

    /// How far back an onset may lie: 28 days.
    public static let onsetWindowDays: Int64 = 28
    /// The onset assumed when none is known: 4 days before the upload.
    public static let assumedOnsetAge: Int64 = 4 * 86400

    /// The onset interval of an upload: the phone's own `symptomOnsetInterval` when it lies before now and within 28
    /// days (from UTC midnight), else the certificate's under the same test, else four days before now, which is
    /// counted as an upload without an onset (`missing` true).
    public static func onset(requested: Int64?, certified: Int64?, now: Int64) -> (interval: Int64, missing: Bool) {
        let current = now / 600
        let earliest = UTCDay(containing: now).adding(days: -onsetWindowDays).midnight / 600
        for candidate in [requested, certified] {
            if let candidate, candidate < current, candidate >= earliest { return (candidate, false) }
        }
        return ((now - assumedOnsetAge) / 600, true)
    }

    /// Days from the onset's UTC day to the key's start's UTC day (negative for a key before the onset).
    public static func daysSinceOnset(keyStart: Int64, onset: Int64) -> Int64 {
        dayInterval(keyStart) / 144 - dayInterval(onset) / 144
    }

    /// Keys more than this many days from the onset are dropped, with a warning and no error code.
    public static let maxDaysFromOnset: Int64 = 14

    private static func dayInterval(_ interval: Int64) -> Int64 {
        interval - ((interval % 144) + 144) % 144
    }
}
