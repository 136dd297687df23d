import Foundation

/// A validated key as it is stored: both TRL and DSOS filled in, the origin resolved to the home country.
public struct DiagnosisKey: Sendable, Equatable {
    public var keyData: Data
    public var rollingStartIntervalNumber: Int32
    public var rollingPeriod: Int32
    public var transmissionRiskLevel: Int32
    public var daysSinceOnsetOfSymptoms: Int32
    /// `TemporaryExposureKey.ReportType` raw value (1 = confirmed test unless the phone said otherwise).
    public var reportType: Int32
    public var originCountry: String
    /// Sorted, without duplicates.
    public var visitedCountries: [String]
    public var consentToFederation: Bool
    /// `SubmissionType` raw value (0 PCR test, 1 rapid test).
    public var submissionType: Int32

    public init(
        keyData: Data, rollingStartIntervalNumber: Int32, rollingPeriod: Int32, transmissionRiskLevel: Int32,
        daysSinceOnsetOfSymptoms: Int32, reportType: Int32, originCountry: String, visitedCountries: [String],
        consentToFederation: Bool, submissionType: Int32
    ) {
        self.keyData = keyData
        self.rollingStartIntervalNumber = rollingStartIntervalNumber
        self.rollingPeriod = rollingPeriod
        self.transmissionRiskLevel = transmissionRiskLevel
        self.daysSinceOnsetOfSymptoms = daysSinceOnsetOfSymptoms
        self.reportType = reportType
        self.originCountry = originCountry
        self.visitedCountries = visitedCountries
        self.consentToFederation = consentToFederation
        self.submissionType = submissionType
    }
}

/// Why a key of an accepted submission was not stored. The request still succeeds: the app cannot do
/// anything about these keys, and refusing the whole upload would lose the valid ones.
public enum DropReason: String, Sendable, CaseIterable {
    /// Start interval 0 or negative (an unset field).
    case startIntervalNotPositive = "start_interval_not_positive"
    /// Starts after the current 10-minute interval.
    case future
    /// Started before the retention window (the key could not be published any more).
    case tooOld = "too_old"
    /// The same key data twice in one payload: the first one is kept.
    case duplicateInPayload = "duplicate_in_payload"
    /// Already stored by an earlier submission of the same type.
    case alreadyStored = "already_stored"
}

/// The keys of a valid payload that are to be stored, and how many were dropped, by reason.
public struct ValidatedSubmission: Sendable, Equatable {
    public var keys: [DiagnosisKey]
    public var dropped: [DropReason: Int]
}
