import ExposureProtocol
import Foundation

/// The rules for the keys of an opened `Upload` (covidshield.md, "Key checks"), with the sheet's fixes of the
/// reference: an absent rolling period is a full day (144), and a timestamp beyond 10^11 is in milliseconds (the
/// first apps wrote milliseconds into `seconds`).
public struct CovidShieldKeyRules: Sendable {
    public static let maxKeys = 14
    public static let keyDataBytes = 16
    /// Seconds an upload's timestamp may be old at most (an hour old is too old).
    public static let maxAge: Int64 = 3600
    /// Timestamps above this are milliseconds.
    static let millisecondsAbove: Int64 = 100_000_000_000
    /// The seed accepted up to 2016; the keys also go into GAEN export files, which do not take more than a day.
    public static let rollingPeriods: ClosedRange<UInt32> = 1...144
    public static let transmissionRiskLevels: ClosedRange<Int32> = 0...8

    public init() {}

    /// The keys to store, in the sheet's order of checks: count, timestamp, then per key period, data, start, risk.
    public func keys(of upload: Covidshield_Upload, region: String, now: Date) throws(CovidShieldUploadRejection) -> [DiagnosisKey] {
        guard upload.keys.count <= Self.maxKeys else { throw .tooManyKeys }
        var seconds = upload.timestamp.seconds
        if seconds > Self.millisecondsAbove { seconds /= 1000 }
        // Only age is checked (seed era): the apps' clocks may run ahead.
        guard now.epochSeconds - seconds < Self.maxAge else { throw .invalidTimestamp }
        var keys: [DiagnosisKey] = []
        for key in upload.keys {
            let period = key.hasRollingPeriod ? key.rollingPeriod : 144
            guard Self.rollingPeriods.contains(period) else { throw .invalidRollingPeriod }
            guard key.keyData.count == Self.keyDataBytes else { throw .invalidKeyData }
            // Interval numbers fit in 31 bits until the year 42,000; a larger one is not a real key.
            guard key.rollingStartNumber != 0, key.rollingStartNumber <= UInt32(Int32.max) else { throw .invalidRollingStartNumber }
            guard Self.transmissionRiskLevels.contains(key.transmissionRiskLevel) else { throw .invalidTransmissionRiskLevel }
            keys.append(DiagnosisKey(
                keyData: key.keyData, rollingStartIntervalNumber: Int32(key.rollingStartNumber), rollingPeriod: Int32(period),
                transmissionRiskLevel: key.transmissionRiskLevel,
                // CovidShield apps say nothing of symptoms; a health worker's code stands for a confirmed test.
                daysSinceOnsetOfSymptoms: 0, reportType: 1, originCountry: region, visitedCountries: [],
                consentToFederation: false, submissionType: Self.submissionType
            ))
        }
        return keys
    }

    /// Stored like a CWA key proven by a PCR test, so that the same key data from either family is one row.
    public static let submissionType: Int32 = 0
}
