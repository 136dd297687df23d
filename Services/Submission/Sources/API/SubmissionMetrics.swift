import Foundation
import Metrics

/// How a submission request ended, as counted.
enum SubmissionOutcome: String, Sendable, CaseIterable {
    case real
    case fake
    case invalidTAN = "invalid_tan"
    case invalidPayload = "invalid_payload"
    case failed
}

/// What one request adds to the counters.
struct SubmissionTally: Sendable {
    var outcome: SubmissionOutcome
    var keysStored = 0
    var paddingKeysStored = 0
    var dropped: [DropReason: Int] = [:]
}

/// The service's counters, moved in batches.
///
/// A counter that moves right after a phone's request would tell an observer of `/metrics` whether that
/// request was real and how many keys it carried, defeating fake requests. Counts are therefore held
/// in memory and published only once `batchSize` requests (real and fake together) have accumulated, so each
/// visible step mixes many requests. The price: up to `batchSize - 1` requests are not yet visible, and are
/// lost on restart.
final class SubmissionMetrics: @unchecked Sendable {
    /// A counter and its labels.
    struct Key: Hashable, Sendable {
        let label: String
        let dimensions: [String]  // name, value, name, value, … (Hashable, unlike tuples)
    }

    private let lock = NSLock()
    private let batchSize: Int
    private let publish: @Sendable ([Key: Int64]) -> Void
    private var pending: [Key: Int64] = [:]
    private var pendingRequests = 0

    init(batchSize: Int, publish: @escaping @Sendable ([Key: Int64]) -> Void = SubmissionMetrics.publishToMetrics) {
        self.batchSize = batchSize
        self.publish = publish
    }

    func record(_ tally: SubmissionTally) {
        let batch: [Key: Int64]? = lock.withLock {
            pending[Key(label: "submission_requests_total", dimensions: ["outcome", tally.outcome.rawValue]), default: 0] += 1
            if tally.keysStored > 0 {
                pending[Key(label: "submission_keys_stored_total", dimensions: []), default: 0] += Int64(tally.keysStored)
            }
            if tally.paddingKeysStored > 0 {
                pending[Key(label: "submission_padding_keys_stored_total", dimensions: []), default: 0] += Int64(tally.paddingKeysStored)
            }
            for (reason, count) in tally.dropped where count > 0 {
                pending[Key(label: "submission_keys_dropped_total", dimensions: ["reason", reason.rawValue]), default: 0] += Int64(count)
            }
            pendingRequests += 1
            guard pendingRequests >= batchSize else { return nil }
            let batch = pending
            pending = [:]
            pendingRequests = 0
            return batch
        }
        if let batch { publish(batch) }
    }

    @Sendable static func publishToMetrics(_ batch: [Key: Int64]) {
        for (key, count) in batch {
            let dimensions = stride(from: 0, to: key.dimensions.count, by: 2).map { (key.dimensions[$0], key.dimensions[$0 + 1]) }
            Counter(label: key.label, dimensions: dimensions).increment(by: count)
        }
    }
}
