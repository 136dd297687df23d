import ExposureCore
import Logging
import ServiceLifecycle

/// Adds a replica's counts to the database every `interval`, and once more at graceful shutdown; deletes the days
/// past retention. Counts that could not be stored go back to the counter for the next round, so a database outage
/// delays them; only a crash loses what was counted since the last flush (at most one interval).
public struct StatisticsFlusher: Service {
    let counter: DailyCounter
    let store: DailyStatisticsStore
    let interval: Duration
    let retentionDays: Int
    let clock: any WallClock
    let logger: Logger

    public init(counter: DailyCounter, store: DailyStatisticsStore, interval: Duration, retentionDays: Int, clock: any WallClock, logger: Logger) {
        self.counter = counter
        self.store = store
        self.interval = interval
        self.retentionDays = retentionDays
        self.clock = clock
        self.logger = logger
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                break
            }
            await flushLogged()
        }
        // The counts of the last interval, before the service closes its database.
        await flushLogged()
    }

    /// Stores the counts taken from the counter (all or none) and applies retention.
    public func flush() async throws {
        let taken = counter.take()
        do {
            try await store.add(taken)
        } catch {
            counter.restore(taken)
            throw error
        }
        // Today and the `retentionDays - 1` days before it stay.
        try await store.delete(before: StatisticsDay(of: clock.now()).adding(days: -Int64(retentionDays - 1)))
    }

    private func flushLogged() async {
        do {
            try await flush()
        } catch {
            logger.error("statistics flush failed; the counts wait for the next one", metadata: ["error": "\(String(describing: error))"])
        }
    }
}
