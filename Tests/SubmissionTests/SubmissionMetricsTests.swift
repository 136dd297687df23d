import ExposureCore
import ExposureTestSupport
import Foundation
import Testing

@testable import Submission
@testable import SubmissionCore

@Suite struct SubmissionMetricsTests {
    /// Every request is tallied under its outcome, with the keys it stored and dropped, and published only when its
    /// hour has ended.
    @Test func requestsAreTalliedByOutcomeAndPublishedPerHour() {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_750_000_000))
        let published = Published()
        let metrics = SubmissionMetrics(tally: HourlyTally(clock: clock, publish: published.append))
        metrics.record(SubmissionTally(outcome: .real, keysStored: 5, paddingKeysStored: 10, dropped: [.future: 1]))
        metrics.record(SubmissionTally(outcome: .fake))
        metrics.record(SubmissionTally(outcome: .invalidTAN))
        #expect(published.all.isEmpty)
        clock.advance(by: 3600)
        metrics.record(SubmissionTally(outcome: .fake))
        #expect(published.all == [[
            .init("submission_requests_last_hour", [("outcome", "real")]): 1,
            .init("submission_requests_last_hour", [("outcome", "fake")]): 1,
            .init("submission_requests_last_hour", [("outcome", "invalid_tan")]): 1,
            .init("submission_keys_stored_last_hour"): 5,
            .init("submission_padding_keys_stored_last_hour"): 10,
            .init("submission_keys_dropped_last_hour", [("reason", "future")]): 1,
        ]])
    }

    final class Published: @unchecked Sendable {
        private let lock = NSLock()
        private var hours: [[HourlyTally.Series: Int64]] = []
        @Sendable func append(_ hour: Date, _ counts: [HourlyTally.Series: Int64]) { lock.withLock { hours.append(counts) } }
        var all: [[HourlyTally.Series: Int64]] { lock.withLock { hours } }
    }
}
