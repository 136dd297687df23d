import Foundation
import Testing

@testable import Submission

@Suite struct SubmissionMetricsTests {
    final class Published: @unchecked Sendable {
        private let lock = NSLock()
        private var batches: [[SubmissionMetrics.Key: Int64]] = []
        func append(_ batch: [SubmissionMetrics.Key: Int64]) { lock.withLock { batches.append(batch) } }
        var all: [[SubmissionMetrics.Key: Int64]] { lock.withLock { batches } }
    }

    static func requests(_ outcome: String) -> SubmissionMetrics.Key {
        .init(label: "submission_requests_total", dimensions: ["outcome", outcome])
    }

    @Test func countersMoveOnlyInWholeBatches() {
        let published = Published()
        let metrics = SubmissionMetrics(batchSize: 3, publish: published.append)
        metrics.record(SubmissionTally(outcome: .real, keysStored: 5, dropped: [.future: 1]))
        metrics.record(SubmissionTally(outcome: .fake))
        // Two requests: nothing is visible yet, so neither can be told apart.
        #expect(published.all.isEmpty)
        metrics.record(SubmissionTally(outcome: .invalidTAN))
        #expect(published.all == [[
            Self.requests("real"): 1, Self.requests("fake"): 1, Self.requests("invalid_tan"): 1,
            .init(label: "submission_keys_stored_total", dimensions: []): 5,
            .init(label: "submission_keys_dropped_total", dimensions: ["reason", "future"]): 1,
        ]])
        for _ in 0..<5 { metrics.record(SubmissionTally(outcome: .fake)) }
        #expect(published.all.count == 2)
        #expect(published.all.last == [Self.requests("fake"): 3])
    }
}
