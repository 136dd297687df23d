import ExposureCore
import ExposureTestSupport
import Foundation
import Testing

/// Counts of what app requests decide move only when an hour has ended (`HourlyTally`).
@Suite struct HourlyTallyTests {
    final class Published: @unchecked Sendable {
        private let lock = NSLock()
        private var hours: [(Date, [HourlyTally.Series: Int64])] = []
        @Sendable func append(_ hour: Date, _ counts: [HourlyTally.Series: Int64]) { lock.withLock { hours.append((hour, counts)) } }
        var all: [(Date, [HourlyTally.Series: Int64])] { lock.withLock { hours } }
    }

    static let real = HourlyTally.Series("requests_last_hour", [("outcome", "real")])
    static let fake = HourlyTally.Series("requests_last_hour", [("outcome", "fake")])

    @Test func nothingIsPublishedWithinAnHourAndEachHourAfterItEnds() {
        // Half past an hour.
        let hourStart: TimeInterval = 486_111 * 3600
        let clock = ManualClock(Date(timeIntervalSince1970: hourStart + 1800))
        let published = Published()
        let tally = HourlyTally(clock: clock, publish: published.append)
        tally.count(Self.real)
        tally.count(Self.fake, by: 3)
        tally.publishIfHourEnded()
        #expect(published.all.isEmpty)
        clock.advance(by: 1799)
        tally.count(Self.real)
        #expect(published.all.isEmpty)
        clock.advance(by: 1)  // the next hour begins
        tally.publishIfHourEnded()
        #expect(published.all.count == 1)
        #expect(published.all.first?.0 == Date(timeIntervalSince1970: hourStart))
        #expect(published.all.first?.1 == [Self.real: 2, Self.fake: 3])
        // An hour with fake requests only: the real series is published as 0, not left at the earlier hour's count.
        tally.count(Self.fake)
        clock.advance(by: 3600)
        tally.count(Self.fake)
        #expect(published.all.last?.1 == [Self.real: 0, Self.fake: 1])
        // Two hours pass unseen: the hour just ended had nothing.
        clock.advance(by: 7200)
        tally.publishIfHourEnded()
        #expect(published.all.last?.1 == [Self.real: 0, Self.fake: 0])
        #expect(published.all.count == 3)
    }

    @Test func publishedHoursBecomeGauges() {
        Observability.bootstrapMetrics()
        let clock = ManualClock(Date(timeIntervalSince1970: 1_750_000_000))
        let label = "hourly_tally_test_\(UInt32.random(in: 0...UInt32.max))"
        let tally = HourlyTally(clock: clock)
        tally.count(.init(label, [("outcome", "found")]), by: 4)
        #expect(PrometheusText.value(in: PrometheusText.ofThisProcess(), name: label, labels: ["outcome": "found"]) == nil)
        clock.advance(by: 3600)
        tally.publishIfHourEnded()
        #expect(PrometheusText.value(in: PrometheusText.ofThisProcess(), name: label, labels: ["outcome": "found"]) == 4)
    }
}
