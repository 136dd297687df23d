/// Why a ProteGO upload was refused before its token was used. The message names the rule, never a value from the
/// payload; the reason is the metric label.
public struct ProteGORejection: Error, Sendable, Equatable {
    public enum Reason: String, Sendable, CaseIterable {
        case keyCount = "invalid_key_count"
        case keyData = "invalid_key_data"
        case rollingPeriod = "invalid_rolling_period"
        case rollingStart = "invalid_rolling_start"
        case transmissionRisk = "invalid_transmission_risk"
        case overlappingKeys = "overlapping_keys"
        case region = "invalid_region"
        case attestationMissing = "attestation_missing"
    }

    public let reason: Reason
    public let message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }
}
