import ExposureProtocol
import Foundation
import SwiftProtobuf

/// The contract's rules for an uploaded `SubmissionPayload`.
///
/// A payload that breaks a rule is refused as a whole (400) before any TAN is spent. Keys that are merely
/// unusable (start interval not positive, in the future, older than the retention window) are dropped
/// silently and the rest is stored.
public struct SubmissionValidator: Sendable {
    public struct Rules: Sendable {
        public var maxKeys: Int
        public var homeCountry: String
        public var supportedCountries: Set<String>
        public var retentionDays: Int
        public var riskMapping: TransmissionRiskMapping

        public init(
            maxKeys: Int = 14,
            homeCountry: String = "DE",
            supportedCountries: Set<String> = Set(Countries.europeanDefault),
            retentionDays: Int = 14,
            riskMapping: TransmissionRiskMapping = .standard
        ) {
            self.maxKeys = maxKeys
            self.homeCountry = homeCountry
            self.supportedCountries = supportedCountries
            self.retentionDays = retentionDays
            self.riskMapping = riskMapping
        }
    }

    /// Ten-minute intervals per day: keys start at UTC midnight, so their start is a multiple of this.
    public static let intervalsPerDay: Int32 = 144
    public static let secondsPerInterval: Int64 = 600
    public static let submissionTypeField = 7
    public static let acceptedSubmissionTypes: Set<SubmissionType> = [.pcrTest, .rapidTest]

    public let rules: Rules

    public init(rules: Rules) {
        self.rules = rules
    }

    /// Parses the body. Unknown fields are kept (newer apps may send more), malformed bytes are refused.
    public func parse(_ body: some Collection<UInt8>) throws(SubmissionRejection) -> SubmissionPayload {
        do {
            return try SubmissionPayload(serializedBytes: Array(body))
        } catch {
            throw SubmissionRejection(.unparsable, "The body is not a valid SubmissionPayload protocol buffer.")
        }
    }

    public func validate(_ payload: SubmissionPayload, now: Date) throws(SubmissionRejection) -> ValidatedSubmission {
        let submissionType = try checkSubmissionType(payload)
        guard (1...rules.maxKeys).contains(payload.keys.count) else {
            throw SubmissionRejection(.keyCount, "A submission holds 1 to \(rules.maxKeys) keys.")
        }
        let origin = try checkOrigin(payload)
        let visited = try checkVisitedCountries(payload)

        let currentInterval = Int32(clamping: now.epochSeconds / Self.secondsPerInterval)
        let todayStart = currentInterval - currentInterval % Self.intervalsPerDay
        let oldestAllowed = todayStart - Int32(rules.retentionDays) * Self.intervalsPerDay

        var keys: [DiagnosisKey] = []
        var dropped: [DropReason: Int] = [:]
        var seen: Set<Data> = []
        for (index, key) in payload.keys.enumerated() {
            let (riskLevel, daysSinceOnset) = try checkKey(key, index: index)
            let start = key.rollingStartIntervalNumber
            let reason: DropReason? =
                if start <= 0 { .startIntervalNotPositive }
                else if start > currentInterval { .future }
                else if start < oldestAllowed { .tooOld }
                else if !seen.insert(key.keyData).inserted { .duplicateInPayload }
                else { nil }
            if let reason {
                dropped[reason, default: 0] += 1
                continue
            }
            keys.append(DiagnosisKey(
                keyData: key.keyData,
                rollingStartIntervalNumber: start,
                rollingPeriod: key.rollingPeriod,
                transmissionRiskLevel: riskLevel,
                daysSinceOnsetOfSymptoms: daysSinceOnset,
                reportType: Int32(key.reportType.rawValue),
                originCountry: origin,
                visitedCountries: visited,
                consentToFederation: payload.consentToFederation,
                submissionType: Int32(submissionType.rawValue)
            ))
        }
        return ValidatedSubmission(keys: keys, dropped: dropped)
    }

    /// Only test-backed uploads are keys with a TAN: PCR or rapid test. An enum value the schema does not know
    /// lands in the unknown fields (proto2) and must not pass as the default, PCR.
    private func checkSubmissionType(_ payload: SubmissionPayload) throws(SubmissionRejection) -> SubmissionType {
        // Unknown fields that cannot be read fail closed: they might hide the submission type.
        guard let unknown = ProtobufUnknownFields.fieldNumbers(in: payload.unknownFields.data),
              !unknown.contains(Self.submissionTypeField)
        else {
            throw SubmissionRejection(.submissionType, "The submission type is unknown.")
        }
        guard Self.acceptedSubmissionTypes.contains(payload.submissionType) else {
            throw SubmissionRejection(.submissionType, "Only PCR and rapid test submissions are accepted with a TAN.")
        }
        return payload.submissionType
    }

    /// An absent or empty origin means the home country; any other value is refused.
    private func checkOrigin(_ payload: SubmissionPayload) throws(SubmissionRejection) -> String {
        guard payload.hasOrigin, !payload.origin.isEmpty else { return rules.homeCountry }
        guard payload.origin == rules.homeCountry else {
            throw SubmissionRejection(.origin, "origin must be \(rules.homeCountry) when present.")
        }
        return payload.origin
    }

    private func checkVisitedCountries(_ payload: SubmissionPayload) throws(SubmissionRejection) -> [String] {
        for country in payload.visitedCountries where !rules.supportedCountries.contains(country) {
            throw SubmissionRejection(.visitedCountries, "visitedCountries may only hold supported countries (ISO 3166 alpha-2, upper case).")
        }
        return Set(payload.visitedCountries).sorted()
    }

    /// The structural rules of one key; returns its TRL and DSOS, deriving the missing one.
    private func checkKey(_ key: TemporaryExposureKey, index: Int) throws(SubmissionRejection) -> (Int32, Int32) {
        guard key.keyData.count == 16 else {
            throw SubmissionRejection(.keyData, "keys[\(index)].key_data must be exactly 16 bytes.")
        }
        guard key.rollingStartIntervalNumber % Self.intervalsPerDay == 0 else {
            throw SubmissionRejection(.rollingStartInterval, "keys[\(index)].rolling_start_interval_number must start at UTC midnight (a multiple of 144).")
        }
        guard (1...Self.intervalsPerDay).contains(key.rollingPeriod) else {
            throw SubmissionRejection(.rollingPeriod, "keys[\(index)].rolling_period must be between 1 and 144.")
        }
        let risk = key.hasTransmissionRiskLevel ? key.transmissionRiskLevel : nil
        let days = key.hasDaysSinceOnsetOfSymptoms ? key.daysSinceOnsetOfSymptoms : nil
        if let risk, !TransmissionRiskMapping.riskLevels.contains(risk) {
            throw SubmissionRejection(.transmissionRisk, "keys[\(index)].transmission_risk_level must be between 1 and 8.")
        }
        if let days, !TransmissionRiskMapping.daysSinceOnset.contains(days) {
            throw SubmissionRejection(.transmissionRisk, "keys[\(index)].days_since_onset_of_symptoms must be between -14 and 4000.")
        }
        switch (risk, days) {
        case let (risk?, days?): return (risk, days)
        case let (risk?, nil): return (risk, rules.riskMapping.daysSinceOnset(forRiskLevel: risk))
        case let (nil, days?): return (rules.riskMapping.riskLevel(forDaysSinceOnset: days), days)
        case (nil, nil):
            throw SubmissionRejection(.transmissionRisk, "keys[\(index)] needs a transmission_risk_level, a days_since_onset_of_symptoms, or both.")
        }
    }
}
