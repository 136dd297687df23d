import ExposureCore
import Hummingbird
import Logging
import OpenAPIHummingbird
import ServiceLifecycle

/// A service's daily statistics: the counter its handlers bump, the store, the flusher job and the API on the
/// management listener. One of these per service bundle (`makeBundle`).
public struct ServiceStatistics: Sendable {
    public let counter: DailyCounter
    public let store: DailyStatisticsStore
    public let flusher: StatisticsFlusher
    let endpoint: StatisticsEndpoint
    let readers: ServiceTokens
    let logger: Logger

    public init(service: String, figures: [DailyFigure], database: Database, settings: StatisticsSettings, environment: ServiceEnvironment) {
        counter = DailyCounter(clock: environment.clock)
        store = DailyStatisticsStore(database: database, service: service)
        flusher = StatisticsFlusher(
            counter: counter, store: store, interval: settings.flushInterval, retentionDays: settings.retentionDays,
            clock: environment.clock, logger: environment.logger
        )
        endpoint = StatisticsEndpoint(service: service, store: store, figures: figures, clock: environment.clock)
        readers = settings.readers
        logger = environment.logger
    }

    /// Serves `GET /version/v1/statistics` on `router` (the management listener's), for readers only.
    public func register(on router: Router<BasicRequestContext>) throws {
        try endpoint.registerHandlers(
            on: router, configuration: StandardRouter.openAPIConfiguration,
            middlewares: [OpenAPIErrorMiddleware(logger: logger), StatisticsReaderMiddleware(readers: readers)]
        )
    }
}
