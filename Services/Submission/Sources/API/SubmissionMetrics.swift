import ExposureCore
import Foundation
import SubmissionDomain

/// How a submission request ended, as counted.
enum SubmissionOutcome: String, Sendable, CaseIterable {
    case real
    case fake
    case invalidTAN = "invalid_tan"
    case invalidPayload = "invalid_payload"
    case failed
}

/// What one request adds to the counts.
struct SubmissionTally: Sendable {
    var outcome: SubmissionOutcome
    var keysStored = 0
    var paddingKeysStored = 0
    var dropped: [DropReason: Int] = [:]
}

/// The service's counts of what uploads decided, published per finished hour (`HourlyTally`).
///
/// A counter that moved right after a phone's upload would tell an observer whether the upload was real and how
/// many keys it carried. Counts published in batches of N requests do not hide that from someone who sends the
/// other N − 1 requests himself (fakes are free to send), so they are held for the whole hour instead: then that
/// someone would have to be the only other uploader of the hour.
struct SubmissionMetrics: Sendable {
    let tally: HourlyTally

    func record(_ request: SubmissionTally) {
        tally.count(.init("submission_requests_last_hour", [("outcome", request.outcome.rawValue)]))
        tally.count(.init("submission_keys_stored_last_hour"), by: request.keysStored)
        tally.count(.init("submission_padding_keys_stored_last_hour"), by: request.paddingKeysStored)
        for (reason, count) in request.dropped {
            tally.count(.init("submission_keys_dropped_last_hour", [("reason", reason.rawValue)]), by: count)
        }
    }
}
