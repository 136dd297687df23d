import ExposureCore
import SubmissionDomain

/// The adapter's counts, published per finished hour (`HourlyTally`), for the same reason as the CWA upload's
/// (`SubmissionMetrics`): a counter that moved right after a phone's request would tell an observer what it decided.
/// Device attestations are recorded here, as present or absent per upload, and nowhere else: nothing links them to
/// stored keys.
struct ProteGOMetrics: Sendable {
    let tally: HourlyTally

    func accessToken(_ outcome: String) {
        tally.count(.init("protego_access_token_requests_last_hour", [("outcome", outcome)]))
    }

    func upload(_ outcome: String, attestation: Bool? = nil, keysStored: Int = 0) {
        tally.count(.init("protego_upload_requests_last_hour", [("outcome", outcome)]))
        if let attestation {
            tally.count(.init("protego_upload_attestations_last_hour", [("attestation", attestation ? "present" : "absent")]))
        }
        tally.count(.init("protego_keys_stored_last_hour"), by: keysStored)
    }
}
