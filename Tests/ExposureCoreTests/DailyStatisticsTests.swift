import ExposureCore
import ExposureStatistics
import ExposureTestSupport
import Foundation
import Logging
import SQLKit
import Testing

/// Daily counts in memory, flushed into the database by every replica (`DailyCounter`, `DailyStatisticsStore`,
/// `StatisticsFlusher`).
@Suite struct DailyStatisticsTests {
    static let figure = DailyFigure("things", isAppSide: false)
    /// 2026-11-27 23:59:59 UTC.
    static let lastSecond = Date(timeIntervalSince1970: 1_795_823_999)

    @Test func daysAreUTCDatesAndOnlyRealDatesParse() throws {
        let day = StatisticsDay(of: Self.lastSecond)
        #expect(day.description == "2026-11-27")
        #expect(StatisticsDay("2026-11-27") == day)
        #expect(day.adding(days: 1).description == "2026-11-28")
        #expect(StatisticsDay("1970-01-01")?.number == 0)
        #expect(StatisticsDay("2024-02-29")?.description == "2024-02-29")
        for text in ["2026-02-29", "2026-13-01", "2026-00-10", "2026-11-31", "2026-1-01", "26-11-27", "2026-11-27T00:00", "", "abcd-ef-gh", "+026-11-27"] {
            #expect(StatisticsDay(text) == nil, "\(text)")
        }
        // Every day of four years round-trips.
        for number in Int64(19_000)...Int64(20_461) {
            let day = StatisticsDay(number: number)
            #expect(StatisticsDay(day.description) == day)
        }
    }

    @Test func aCountGoesToTheUTCDayOfTheInjectedClock() {
        let clock = ManualClock(Self.lastSecond)
        let counter = DailyCounter(clock: clock)
        counter.count(Self.figure, by: 2)
        clock.advance(by: 1)  // midnight
        counter.count(Self.figure)
        counter.count(Self.figure, breakdown: "part")
        counter.count(Self.figure, by: 0)
        let taken = counter.take()
        let day = StatisticsDay(of: Self.lastSecond)
        #expect(taken == [
            .init(day: day, figure: "things", breakdown: ""): 2,
            .init(day: day.adding(days: 1), figure: "things", breakdown: ""): 1,
            .init(day: day.adding(days: 1), figure: "things", breakdown: "part"): 1,
        ])
        #expect(counter.take().isEmpty)
    }

    @Test(arguments: TestDatabase.all)
    func twoReplicasAddUpAndARestartKeepsWhatWasFlushed(kind: TestDatabase) async throws {
        try await kind.withFreshDatabase { database in
            try await Self.createTable(database)
            let clock = ManualClock(Self.lastSecond)
            let store = DailyStatisticsStore(database: database, service: "test")
            let first = Self.flusher(DailyCounter(clock: clock), store: store, clock: clock)
            let second = Self.flusher(DailyCounter(clock: clock), store: store, clock: clock)
            first.counter.count(Self.figure, by: 3)
            second.counter.count(Self.figure, by: 4)
            second.counter.count(Self.figure, breakdown: "officer-1")
            try await first.flusher.flush()
            try await second.flusher.flush()
            // A flush with nothing new adds nothing.
            try await first.flusher.flush()
            let day = StatisticsDay(of: Self.lastSecond)
            #expect(try await store.counts(from: day, through: day) == [
                DailyCount(day: day, figure: "things", breakdown: "", count: 7),
                DailyCount(day: day, figure: "things", breakdown: "officer-1", count: 1),
            ])
            // A restarted replica: a new counter, the same table.
            let restarted = Self.flusher(DailyCounter(clock: clock), store: DailyStatisticsStore(database: database, service: "test"), clock: clock)
            restarted.counter.count(Self.figure)
            clock.advance(by: 1)
            restarted.counter.count(Self.figure, by: 5)
            try await restarted.flusher.flush()
            #expect(try await store.counts(from: day, through: day.adding(days: 1)).map(\.count) == [8, 1, 5])
            #expect(try await store.counts(from: day.adding(days: 1), through: day.adding(days: 1)).map(\.day) == [day.adding(days: 1)])
        }
    }

    @Test(arguments: TestDatabase.all)
    func countsThatCouldNotBeStoredWaitForTheNextFlush(kind: TestDatabase) async throws {
        try await kind.withFreshDatabase { database in
            let clock = ManualClock(Self.lastSecond)
            let store = DailyStatisticsStore(database: database, service: "test")
            let replica = Self.flusher(DailyCounter(clock: clock), store: store, clock: clock)
            replica.counter.count(Self.figure, by: 2)
            // No table yet: the flush fails and keeps the counts.
            await #expect(throws: (any Error).self) { try await replica.flusher.flush() }
            #expect(replica.counter.pending.values.reduce(0, +) == 2)
            try await Self.createTable(database)
            replica.counter.count(Self.figure)
            try await replica.flusher.flush()
            let day = StatisticsDay(of: Self.lastSecond)
            #expect(try await store.counts(from: day, through: day).map(\.count) == [3])
            #expect(replica.counter.pending.isEmpty)
        }
    }

    @Test(arguments: TestDatabase.all)
    func daysPastRetentionAreDeleted(kind: TestDatabase) async throws {
        try await kind.withFreshDatabase { database in
            try await Self.createTable(database)
            let clock = ManualClock(Self.lastSecond)
            let store = DailyStatisticsStore(database: database, service: "test")
            let counter = DailyCounter(clock: clock)
            let flusher = StatisticsFlusher(counter: counter, store: store, interval: .seconds(60), retentionDays: 2, clock: clock, logger: TestLogger.quiet)
            let first = StatisticsDay(of: clock.now())
            counter.count(Self.figure)
            try await flusher.flush()
            clock.advance(by: 86400)
            counter.count(Self.figure)
            try await flusher.flush()
            #expect(try await store.counts(from: first, through: first.adding(days: 5)).count == 2)
            clock.advance(by: 86400)  // a retention of two days keeps today and yesterday: the first day goes
            try await flusher.flush()
            #expect(try await store.counts(from: first, through: first.adding(days: 5)).map(\.day) == [first.adding(days: 1)])
        }
    }

    @Test func csvQuotesWhatNeedsQuotingAndDefusesFormulas() {
        let day = StatisticsDay(number: 0)
        let csv = StatisticsCSV.render([
            DailyCount(day: day, figure: "teletans_issued_by_officer", breakdown: "anna, \"the\" officer", count: 2),
            DailyCount(day: day, figure: "teletans_issued_by_officer", breakdown: "=HYPERLINK(1)", count: 1),
        ])
        #expect(csv == "day,figure,breakdown,count\r\n1970-01-01,teletans_issued_by_officer,\"anna, \"\"the\"\" officer\",2\r\n1970-01-01,teletans_issued_by_officer,'=HYPERLINK(1),1\r\n")
    }

    static func createTable(_ database: Database) async throws {
        try await database.withConnection { connection in
            for statement in DailyStatisticsStore.createTable(service: "test") { try await connection.raw("\(unsafeRaw: statement)").run() }
        }
    }

    static func flusher(_ counter: DailyCounter, store: DailyStatisticsStore, clock: ManualClock) -> (counter: DailyCounter, flusher: StatisticsFlusher) {
        (counter, StatisticsFlusher(counter: counter, store: store, interval: .seconds(60), retentionDays: 731, clock: clock, logger: TestLogger.quiet))
    }
}
