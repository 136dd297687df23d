import ExposureProtocol

/// Phones on version 2 of the Exposure Notification framework ignore the transmission risk level; the level is
/// encoded into report type and days since onset so that they can recover it.
public enum RiskLevelEncoding {
    /// TRL 1,2 → recursive; 3,4 → self report; 5,6 → clinical diagnosis; 7,8 → confirmed test.
    public static func reportType(for level: Int32) -> TemporaryExposureKey.ReportType {
        switch level {
        case ...2: .recursive
        case 3...4: .selfReport
        case 5...6: .confirmedClinicalDiagnosis
        default: .confirmedTest
        }
    }

    /// Odd levels → 1, even → 2.
    public static func daysSinceOnset(for level: Int32) -> Int32 {
        level % 2 == 1 ? 1 : 2
    }

    /// The key as it goes into an export file.
    public static func exported(_ key: ExportableKey) -> TemporaryExposureKey {
        var exported = TemporaryExposureKey()
        exported.keyData = .init(key.keyData)
        exported.transmissionRiskLevel = key.transmissionRiskLevel
        exported.rollingStartIntervalNumber = key.rollingStartIntervalNumber
        exported.rollingPeriod = key.rollingPeriod
        exported.reportType = reportType(for: key.transmissionRiskLevel)
        exported.daysSinceOnsetOfSymptoms = daysSinceOnset(for: key.transmissionRiskLevel)
        return exported
    }
}
