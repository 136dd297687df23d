import ExposureCore
import ExposureStatistics
import Foundation
import Hummingbird
import Logging
import OpenAPIHummingbird
import OpenAPIRuntime
import ServiceLifecycle
import SubmissionCore
import SubmissionCovidShield
import SubmissionDomain
import SubmissionLemon
import SubmissionProteGO

/// The submission service: diagnosis keys in, with a TAN spent at verification in two phases; recovery of uploads
/// left pending; retention of stored keys.
public enum SubmissionService {
    public static let name = "submission"
    public static let listener = "app"

    /// Opens and migrates the database, then builds the listener and the retention job.
    public static func makeBundle(_ configuration: SubmissionConfiguration, environment: ServiceEnvironment) async throws -> ServiceBundle {
        let environment = environment.named(name)
        let database = try await Database.open(configuration.common, migrator: SubmissionMigrations.migrator, environment: environment)
        do {
            return try await makeBundle(configuration, database: database, environment: environment)
        } catch {
            await database.shutdown()
            throw error
        }
    }

    /// - Parameters:
    ///   - latency: the fake-request latency matcher (tests pass one with a known mean).
    ///   - tally: where the hour's counts go (tests pass one that captures them; default: gauges).
    static func makeBundle(
        _ configuration: SubmissionConfiguration,
        database: Database,
        environment: ServiceEnvironment,
        latency: LatencyMatcher? = nil,
        tally: HourlyTally? = nil
    ) async throws -> ServiceBundle {
        let logger = environment.logger
        let verificationToken = try ServiceTokens.required(configuration.verificationToken, variable: "VERIFICATION_API_TOKEN")
        let store = DiagnosisKeyStore(database: database)
        let tally = tally ?? HourlyTally(clock: environment.clock, publish: environment.publishHour)
        let redemptionSecret = try await RedemptionSecretStore(database: database).secret(random: environment.random)
        // Fails fast when verification is down, so that the bounded retries below decide how long it takes.
        let http = DownstreamHTTPClient(connectTimeout: configuration.verification.timeout)
        let reservations = TANReservations(
            baseURL: configuration.verificationURL, policy: configuration.verification, serviceToken: verificationToken,
            http: http, logger: logger
        )
        let statistics = ServiceStatistics(
            service: name, figures: KeyIntake.figures, database: database, settings: configuration.statistics, environment: environment
        )
        let intake = KeyIntake(
            statistics: statistics.counter,
            store: store,
            reservations: reservations,
            redemptionKeys: RedemptionKeyDeriver(secret: redemptionSecret),
            padding: KeyPadding(multiplier: configuration.keyPaddingMultiplier),
            environment: environment
        )
        let api = SubmissionAPI(
            validator: SubmissionValidator(rules: configuration.rules),
            intake: intake,
            latency: latency ?? LatencyMatcher(random: environment.random),
            metrics: SubmissionMetrics(tally: tally),
            maxBodyBytes: configuration.maxBodyBytes,
            environment: environment
        )
        // The contract answers an oversized body with 400, before the rest of it is read.
        let router = StandardRouter.make(service: name, bodyLimit: .init(maxBytes: configuration.maxBodyBytes, status: .badRequest))
        let readiness = [
            ReadinessCheck.database(database),
            ServiceClients.liveness(name: "verification", baseURL: configuration.verificationURL, client: http.client),
        ]
        let distributor: Distributor
        // The app families' one-time codes are verification's: one client spends them for every adapter.
        let codes = OneTimeCodes(
            baseURL: configuration.verificationURL, policy: configuration.verification, serviceToken: verificationToken,
            http: http, logger: logger
        )
        var families: [any SubmissionFamily] = []
        do {
            try api.registerHandlers(on: router, configuration: StandardRouter.openAPIConfiguration, middlewares: [OpenAPIErrorMiddleware(logger: logger)])
            // Each other family, when enabled, on the same listener: its app has one base URL for what it sends. A
            // disabled family's paths are not there (404).
            families = try await makeFamilies(configuration, context: SubmissionFamilyContext(
                database: database, keys: store, intake: intake, codes: codes, rules: configuration.rules, tally: tally,
                statistics: statistics.counter, http: http, maxBodyBytes: configuration.maxBodyBytes,
                retentionInterval: configuration.retentionInterval, environment: environment
            ))
            for family in families { try family.register(on: router) }
            distributor = try makeDistributor(configuration, database: database, logger: logger)
        } catch {
            await http.shutdown()
            throw error
        }
        if configuration.distribution.serveExports {
            ExportFileRoutes.register(
                on: router, root: configuration.distribution.exportDirectory,
                protegoRoot: configuration.writesProteGOExports ? configuration.protego.exportPath : nil
            )
        }

        let retention = PeriodicJob(name: "submission.retention", interval: configuration.retentionInterval, logger: logger) {
            let deleted = try await store.applyRetention(retentionDays: configuration.rules.retentionDays, now: environment.clock.now())
            if deleted > 0 { logger.info("retention applied", metadata: ["deleted": "\(deleted)"]) }
        }
        // Every replica runs it; each of its steps is safe to repeat and to run concurrently.
        let recovery = PendingUploadRecovery(
            store: store, reservations: reservations, after: configuration.recoveryInterval, clock: environment.clock, logger: logger
        )
        let recoveryJob = PeriodicJob(name: "submission.recovery", interval: configuration.recoveryInterval, logger: logger) {
            try await recovery.run()
        }
        var jobs: [any Service] = [retention, recoveryJob, tally.job(service: name, logger: logger), statistics.flusher]
        jobs += families.flatMap(\.jobs)
        if configuration.distribution.interval > .zero {
            // Every replica schedules it; the lock and the recorded round let one of them run each interval.
            let interval = configuration.distribution.interval
            jobs.append(PeriodicJob(name: "submission.distribution", interval: interval, logger: logger) {
                if let report = try await distributor.runScheduled(now: environment.clock.now(), interval: interval) {
                    statistics.counter.count(KeyIntake.keysPublished, by: report.keysPublished + report.protegoKeysPublished)
                }
            })
        }
        return ServiceBundle(
            name: name,
            listeners: [
                HTTPListener(
                    name: listener, address: configuration.listener, router: router, serviceName: name, logger: logger,
                    limits: configuration.common.listenerLimits, clientAddresses: ClientAddressResolver(trustedProxies: configuration.trustedProxies)
                ),
                try ManagementRouter.listener(service: name, readiness: readiness, common: configuration.common, logger: logger) {
                    try statistics.register(on: $0)
                },
            ],
            jobs: jobs,
            cleanup: {
                await http.shutdown()
                await database.shutdown()
            }
        )
    }

    /// The app families enabled beside the CWA upload (docs/architecture.md, "Adding an app family"), in the order their
    /// routes are registered: CovidShield's router middleware sees every request registered after it.
    static func makeFamilies(_ configuration: SubmissionConfiguration, context: SubmissionFamilyContext) async throws -> [any SubmissionFamily] {
        var families: [any SubmissionFamily] = []
        if configuration.families.covidShield {
            families.append(try await CovidShieldFamily.make(configuration.covidShield, context: context))
        }
        if let lemon = try await LemonFamily.make(configuration.lemon, context: context) {
            families.append(lemon)
        }
        if configuration.families.protego {
            families.append(ProteGOFamily.make(configuration.protego, context: context))
        }
        return families
    }

    /// The distribution job with its outputs: the CWA tree and, unless turned off, the ProteGO download format.
    static func makeDistributor(_ service: SubmissionConfiguration, database: Database, logger: Logger) throws -> Distributor {
        let configuration = service.distribution
        let signers = try configuration.signing.load()
        var distributor = Distributor(configuration: configuration, database: database, signers: signers, logger: logger)
        if service.writesProteGOExports {
            distributor.protego = try makeProteGOOutput(service, database: database)
        }
        return distributor
    }

    /// The ProteGO output: the region's keys, its own signing keys and key id, the CWA expiry and batch rules.
    static func makeProteGOOutput(_ service: SubmissionConfiguration, database: Database) throws -> ProteGOExportOutput {
        let protego = service.protego, distribution = service.distribution
        return ProteGOExportOutput(
            region: protego.region,
            store: ProteGOExportStore(database: database, region: protego.region),
            signers: try protego.signing.load(),
            layout: protego.layout,
            planner: ProteGOExportPlanner(
                expiry: ExpiryPolicy(delayMinutes: Int64(distribution.expiryDelayMinutes)),
                batches: ExportBatches(maxKeysPerFile: distribution.maxKeysPerFile),
                retentionDays: Int64(distribution.dailyRetentionDays)
            ),
            lookbackDays: distribution.lookbackDays
        )
    }

    /// The public key of the ProteGO region's primary export signing key, in PEM.
    public static func protegoExportPublicKeyPEM(_ configuration: SubmissionConfiguration) throws -> String {
        try configuration.protego.signing.primaryKey().publicKey.pemRepresentation
    }

    /// `submission-service distribute`: one distribution run (skipped when another replica is running one).
    public static func distribute(_ configuration: SubmissionConfiguration, environment: ServiceEnvironment) async throws -> DistributionReport? {
        let environment = environment.named(name)
        let database = try await Database.open(configuration.common, migrator: SubmissionMigrations.migrator, environment: environment)
        do {
            let distributor = try makeDistributor(configuration, database: database, logger: environment.logger)
            let report = try await distributor.runExclusively(now: environment.clock.now())
            if let report {
                // The scheduler's run (a CronJob) counts its keys as `serve`'s timer does, straight into the store.
                let counter = DailyCounter(clock: environment.clock)
                counter.count(KeyIntake.keysPublished, by: report.keysPublished + report.protegoKeysPublished)
                try await DailyStatisticsStore(database: database, service: name).add(counter.take())
            }
            await database.shutdown()
            return report
        } catch {
            await database.shutdown()
            throw error
        }
    }

    /// The public key of the primary export signing key, in PEM.
    public static func exportPublicKeyPEM(_ configuration: SubmissionConfiguration) throws -> String {
        try configuration.distribution.signing.primaryKey().publicKey.pemRepresentation
    }

    /// `submission-service lemon-import`: imports one statistics file of the LEMON family; returns the rows stored.
    public static func importLemonStatistics(
        _ configuration: SubmissionConfiguration, file: String, day: String?, environment: ServiceEnvironment
    ) async throws -> Int {
        let environment = environment.named(name)
        let database = try await Database.open(configuration.common, migrator: SubmissionMigrations.migrator, environment: environment)
        do {
            let rows = try await LemonStatisticsImport.run(
                file: file, day: day, configuration: configuration.lemon, database: database, clock: environment.clock)
            await database.shutdown()
            return rows
        } catch {
            await database.shutdown()
            throw error
        }
    }

    /// `submission-service lemon-aggregates`: the LEMON survey counts of `from`...`to` as CSV.
    public static func lemonAggregates(
        _ configuration: SubmissionConfiguration, from: String, to: String, minimumCount: Int, environment: ServiceEnvironment
    ) async throws -> String {
        let environment = environment.named(name)
        let database = try await Database.open(configuration.common, migrator: SubmissionMigrations.migrator, environment: environment)
        do {
            let csv = try await LemonSurveyExport.csv(database: database, from: from, to: to, minimumCount: minimumCount)
            await database.shutdown()
            return csv
        } catch {
            await database.shutdown()
            throw error
        }
    }

    /// Applies migrations and closes the database.
    public static func commonSettings(_ settings: Settings) throws -> CommonSettings {
        return try SubmissionConfiguration.commonSettings(settings)
    }

    public static func migrate(_ common: CommonSettings, environment: ServiceEnvironment) async throws {
        let database = try await Database.open(common, migrator: SubmissionMigrations.migrator, environment: environment)
        await database.shutdown()
    }
}
