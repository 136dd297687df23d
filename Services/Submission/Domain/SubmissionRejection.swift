/// Why a payload was refused with 400. The reason is a metric label and the `error` code of the answer;
/// the message names the rule, never a value from the payload.
public struct SubmissionRejection: Error, Sendable, Equatable {
    public enum Reason: String, Sendable, CaseIterable {
        case unparsable = "unparsable_payload"
        case keyCount = "invalid_key_count"
        case keyData = "invalid_key_data"
        case rollingStartInterval = "invalid_rolling_start_interval"
        case rollingPeriod = "invalid_rolling_period"
        case transmissionRisk = "invalid_transmission_risk"
        case origin = "invalid_origin"
        case visitedCountries = "invalid_visited_countries"
        case submissionType = "invalid_submission_type"
    }

    public let reason: Reason
    public let message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }
}
