import ExposureCore
import ExposureStatistics
import Foundation
import Hummingbird
import Logging
import OpenAPIHummingbird
import OpenAPIRuntime
import TestResultDomain

/// The test-result service: lab results in (lab listener), test status out (internal listener).
public enum TestResultService {
    public static let name = "testresult"
    public static let labListener = "lab"
    public static let internalListener = "internal"

    /// Opens and migrates the database, then builds the listeners and the retention job.
    public static func makeBundle(_ configuration: TestResultConfiguration, environment: ServiceEnvironment) async throws -> ServiceBundle {
        let environment = environment.named(name)
        let database = try await Database.open(configuration.common, migrator: TestResultMigrations.migrator, environment: environment)
        do {
            return try makeBundle(configuration, database: database, environment: environment)
        } catch {
            await database.shutdown()
            throw error
        }
    }

    static func makeBundle(_ configuration: TestResultConfiguration, database: Database, environment: ServiceEnvironment) throws -> ServiceBundle {
        let logger = environment.logger
        let internalCallers = try ServiceTokens.required(configuration.internalCallers, variable: "INTERNAL_API_TOKENS")
        let store = TestResultStore(database: database)
        let tally = HourlyTally(clock: environment.clock, publish: environment.publishHour)
        let statistics = ServiceStatistics(
            service: name, figures: [TestResultAPI.labResultsReceived], database: database, settings: configuration.statistics,
            environment: environment
        )
        let credentials = LabCredentialStore(database: database)
        let api = TestResultAPI(
            store: store,
            credentials: credentials,
            validator: ResultBatchValidator(maxBatchSize: configuration.maxBatchSize),
            clock: environment.clock,
            random: environment.random,
            tally: tally,
            statistics: statistics.counter,
            logger: logger
        )
        let middlewares: [any ServerMiddleware] = [
            OpenAPIErrorMiddleware(logger: logger),
            LabAuthenticationMiddleware(
                credentials: credentials,
                certificatesFromTLS: configuration.labTLS?.requestClientCertificate == true,
                clock: environment.clock
            ),
        ]
        let readiness = [ReadinessCheck.database(database)]

        let labRouter = StandardRouter.make(service: name, bodyLimit: .init(maxBytes: configuration.maxBodyBytes))
        try api.registerHandlers(
            on: PathFilteredTransport(labRouter) { !CallerPermissions.testResult.paths.contains($0) },
            configuration: StandardRouter.openAPIConfiguration,
            middlewares: middlewares
        )
        let internalRouter = StandardRouter.make(service: name, bodyLimit: .init(maxBytes: 10_000), callers: (internalCallers, CallerPermissions.testResult))
        try api.registerHandlers(
            on: PathFilteredTransport(internalRouter) { CallerPermissions.testResult.paths.contains($0) },
            configuration: StandardRouter.openAPIConfiguration,
            middlewares: middlewares
        )

        let retention = PeriodicJob(name: "testresult.retention", interval: configuration.retentionInterval, logger: logger) {
            let (redeemed, deleted) = try await store.applyRetention(configuration.retention, now: environment.clock.now())
            if redeemed + deleted > 0 {
                logger.info("retention applied", metadata: ["redeemed": "\(redeemed)", "deleted": "\(deleted)"])
            }
        }
        return ServiceBundle(
            name: name,
            listeners: [
                try HTTPListener(
                    name: labListener, address: configuration.labListener, router: labRouter, serviceName: name, logger: logger,
                    tls: configuration.labTLS, limits: configuration.common.listenerLimits
                ),
                HTTPListener(
                    name: internalListener, address: configuration.internalListener, router: internalRouter, serviceName: name,
                    logger: logger, limits: configuration.common.listenerLimits
                ),
                try ManagementRouter.listener(service: name, readiness: readiness, common: configuration.common, logger: logger) {
                    try statistics.register(on: $0)
                },
            ],
            jobs: [retention, tally.job(service: name, logger: logger), statistics.flusher],
            cleanup: { await database.shutdown() }
        )
    }
}

extension TestResultService {
    /// Applies migrations and closes the database.
    public static func commonSettings(_ settings: Settings) throws -> CommonSettings {
        return try TestResultConfiguration.commonSettings(settings)
    }

    public static func migrate(_ common: CommonSettings, environment: ServiceEnvironment) async throws {
        let database = try await Database.open(common, migrator: TestResultMigrations.migrator, environment: environment)
        await database.shutdown()
    }
}
