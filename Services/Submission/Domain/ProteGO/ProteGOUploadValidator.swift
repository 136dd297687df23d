import ExposureRules
import Foundation

/// The rules of Google's exposure-notifications-server, to which ProteGO Safe's backend forwarded its uploads
/// unchanged (it checked nothing itself), applied to a `ProteGOUpload` (design sheet protego.md, "Semantics"; the
/// choice in docs/protego.md). The key limits are those of the server's later releases, which the released apps
/// were built against (up to 30 keys, up to 3 a day after GAEN 1.5's same-day releases); the rest is as in
/// June 2020.
///
/// Unlike the CWA rules, ENS refuses a whole upload for a key that is too old or in the future rather than dropping
/// the key, and it does not require keys to start at UTC midnight; both are kept, because the apps were built against
/// them. Every refusal happens before the token is used.
public struct ProteGOUploadValidator: Sendable {
    public struct Rules: Sendable {
        /// The region the keys are published for (`PROTEGO_REGION`, default PL): the only value `regions` may hold,
        /// and the keys' origin country.
        public var region: String
        public var attestation: ProteGOAttestationPolicy
        public var riskMapping: TransmissionRiskMapping

        public init(region: String = "PL", attestation: ProteGOAttestationPolicy = .ignore, riskMapping: TransmissionRiskMapping = .standard) {
            self.region = region
            self.attestation = attestation
            self.riskMapping = riskMapping
        }
    }

    /// ENS's `MAX_KEYS_ON_PUBLISH` default since its 0.x releases of late 2020 (15 in June 2020), and the Android
    /// apps' own limit.
    public static let maxKeys = 30
    /// ENS's `MAX_SAME_START_INTERVAL_KEYS` default: keys that share a start interval (a day's key and the shorter
    /// ones a GAEN 1.5 phone releases for the same day), and the Android apps' keys per day.
    public static let maxKeysPerStart = GAENKeyOverlap.maxKeysPerStart
    public static let keyLength = 16
    public static let rollingPeriods: ClosedRange<Int32> = 1...144
    public static let transmissionRisks: ClosedRange<Int32> = 0...8
    /// ENS's `MaxIntervalAge`: a key may start at most 360 hours before the upload.
    public static let maxKeyAge: Int64 = 360 * 3600
    /// The apps' keys are test-confirmed: the CWA store's PCR submission type and CONFIRMED_TEST report type.
    public static let submissionType: Int32 = 0
    public static let reportType: Int32 = 1

    public let rules: Rules

    public init(rules: Rules) {
        self.rules = rules
    }

    /// The keys to store, in the order sent.
    public func validate(_ upload: ProteGOUpload, now: Date) throws(ProteGORejection) -> [DiagnosisKey] {
        guard (1...Self.maxKeys).contains(upload.keys.count) else {
            throw ProteGORejection(.keyCount, "An upload holds 1 to \(Self.maxKeys) temporaryExposureKeys.")
        }
        for region in upload.regions where region.uppercased() != rules.region {
            throw ProteGORejection(.region, "regions may only hold \(rules.region).")
        }
        if rules.attestation == .requirePresence, !upload.hasDeviceAttestation {
            throw ProteGORejection(.attestationMissing, "deviceVerificationPayload is required.")
        }
        let currentInterval = now.epochSeconds / 600
        let oldestInterval = (now.epochSeconds - Self.maxKeyAge + 599) / 600
        var keys: [DiagnosisKey] = []
        for (index, sent) in upload.keys.enumerated() {
            guard let data = Data(base64Encoded: sent.key), data.count == Self.keyLength else {
                throw ProteGORejection(.keyData, "temporaryExposureKeys[\(index)].key must be base64 of 16 bytes.")
            }
            guard Self.rollingPeriods.contains(sent.rollingPeriod) else {
                throw ProteGORejection(.rollingPeriod, "temporaryExposureKeys[\(index)].rollingPeriod must be between 1 and 144.")
            }
            guard Self.transmissionRisks.contains(sent.transmissionRisk) else {
                throw ProteGORejection(.transmissionRisk, "temporaryExposureKeys[\(index)].transmissionRisk must be between 0 and 8.")
            }
            let start = Int64(sent.rollingStartNumber)
            guard start >= oldestInterval else {
                throw ProteGORejection(.rollingStart, "temporaryExposureKeys[\(index)].rollingStartNumber is older than 360 hours.")
            }
            guard start <= currentInterval else {
                throw ProteGORejection(.rollingStart, "temporaryExposureKeys[\(index)].rollingStartNumber is in the future.")
            }
            keys.append(DiagnosisKey(
                keyData: data,
                rollingStartIntervalNumber: sent.rollingStartNumber,
                rollingPeriod: sent.rollingPeriod,
                transmissionRiskLevel: sent.transmissionRisk,
                // ENS knows no days since onset; the mapping's value for the level lets v2 phones weigh the key as v1
                // phones do (level 0, which the CWA range lacks, takes level 1's).
                daysSinceOnsetOfSymptoms: rules.riskMapping.daysSinceOnset(forRiskLevel: max(1, sent.transmissionRisk)),
                reportType: Self.reportType,
                originCountry: rules.region,
                visitedCountries: [],
                consentToFederation: upload.interoperabilityEnabled,
                submissionType: Self.submissionType
            ))
        }
        try Self.checkNoOverlap(keys)
        return keys
    }

    /// ENS's check (`GAENKeyOverlap`), in ProteGO's words.
    static func checkNoOverlap(_ keys: [DiagnosisKey]) throws(ProteGORejection) {
        switch GAENKeyOverlap.problem(keys.map { ($0.keyData, Int64($0.rollingStartIntervalNumber), Int64($0.rollingPeriod)) }) {
        case nil: return
        case .sameKeyTwice:
            throw ProteGORejection(.overlappingKeys, "temporaryExposureKeys must not hold the same key twice.")
        case .tooManyOfOneStart:
            throw ProteGORejection(.overlappingKeys, "At most \(Self.maxKeysPerStart) temporaryExposureKeys may share a rollingStartNumber.")
        case .overlapping:
            throw ProteGORejection(.overlappingKeys, "temporaryExposureKeys of different rollingStartNumbers must not overlap in time.")
        }
    }
}
