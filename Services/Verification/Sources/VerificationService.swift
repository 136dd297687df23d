import ExposureCore
import ExposureStatistics
import Foundation
import Hummingbird
import JWTKit
import Logging
import Metrics
import OpenAPIHummingbird
import OpenAPIRuntime
import ServiceLifecycle
import VerificationDomain
import VerificationENX

/// The verification service: registration tokens, test results and TANs for the apps (app listener); TAN
/// verification, teleTAN issuance and the one-time codes of the other app families for the submission service and the
/// portal (internal listener); the other families' code issuance for health-authority systems (issuer listener).
public enum VerificationService {
    public static let name = "verification"
    public static let appListener = "app"
    public static let internalListener = "internal"
    /// The listener of the health-authority systems that issue one-time codes (`IssuerAPI`).
    public static let issuerListener = "issuer"
    /// The internal listener's routes: those of the table of who may call what, so that none is served unguarded.
    static let internalPaths: Set<String> = CallerPermissions.verification.paths

    public static func makeBundle(_ configuration: VerificationConfiguration, environment: ServiceEnvironment) async throws -> ServiceBundle {
        let environment = environment.named(name)
        let logger = environment.logger
        let internalCallers = try ServiceTokens.required(configuration.internalCallers, variable: "INTERNAL_API_TOKENS")
        let testResultToken = try ServiceTokens.required(configuration.testResultToken, variable: "TESTRESULT_API_TOKEN")
        let keys = try await configuration.signingKeys.makeKeys()
        if !configuration.signingKeys.isConfigured {
            logger.warning("no JWT_JWKS_URL or JWT_PUBLIC_KEY_FILES: teleTAN issuance will refuse every request")
        }
        let database = try await Database.open(configuration.common, migrator: VerificationMigrations.migrator, environment: environment)
        let http = DownstreamHTTPClient(connectTimeout: configuration.testResultPolicy.timeout)
        let lifetimes = configuration.lifetimes
        let tally = HourlyTally(clock: environment.clock, publish: environment.publishHour)
        let statistics = ServiceStatistics(
            service: name, figures: VerificationFigures.all, database: database, settings: configuration.statistics, environment: environment
        )
        // The configured limit beside the issuance counter, so that an alert can compare the two (deploy/monitoring).
        Gauge(label: "verification_teletan_issuance_limit").record(configuration.teleTANRateLimit.limit)
        Gauge(label: "verification_teletan_issuance_window_seconds").record(Int(configuration.teleTANRateLimit.window.seconds))
        // Codes people type are stored under the teleTAN keys; nothing of before keyed hashes needs the legacy form.
        let codeHashes = TypedSecretHasher(keys: configuration.teleTANHashKeys, acceptsLegacy: false)
        let codes = OneTimeCodeStore(database: database, hasher: codeHashes)
        let authorities = AuthorityStore(database: database)
        let signingKeys = AuthoritySigningKeyStore(database: database, sealer: configuration.signingKeyEncryptionKey.map(SecretSealer.init))
        let latency = LatencyMatcher(random: environment.random)
        let api = VerificationAPI(
            sessions: SessionStore(database: database),
            tans: TanStore(database: database, repeatWindow: lifetimes.tanRepeat, lease: lifetimes.tanReservation),
            teleTANs: TeleTANStore(database: database),
            teleTANHashes: TypedSecretHasher(keys: configuration.teleTANHashKeys),
            testResults: TestResultLookup(
                baseURL: configuration.testResultURL, policy: configuration.testResultPolicy, serviceToken: testResultToken,
                concurrency: configuration.testResultConcurrency, clock: environment.clock, http: http, logger: logger
            ),
            officers: OfficerTokenVerifier(keys: keys, clock: environment.clock, authorities: configuration.officerAuthorities),
            authorities: authorities,
            lifetimes: lifetimes,
            rateLimit: configuration.teleTANRateLimit,
            teleTANGuesses: configuration.teleTANGuesses.makeThrottle(clock: environment.clock, random: environment.random),
            codes: codes,
            codeRegions: configuration.codeRegions,
            families: configuration.families,
            codeGuesses: OneTimeCodeGuesses(limits: configuration.codeGuesses, clock: environment.clock, random: environment.random),
            issuedCodes: IssuedCodeStore(database: database),
            issuerKeys: IssuerStore(database: database),
            signingKeys: signingKeys,
            latency: latency,
            tally: tally,
            statistics: statistics.counter,
            clock: environment.clock,
            random: environment.random,
            logger: logger
        )
        let middlewares: [any ServerMiddleware] = [
            OpenAPIErrorMiddleware(logger: logger), BearerTokenMiddleware(), CacheControlMiddleware(VerificationAPI.publicKeysCacheControl),
        ]
        let readiness = [ReadinessCheck.database(database), ServiceClients.liveness(name: "testresult", baseURL: configuration.testResultURL, client: http.client)]
        // The contract: bodies over 10,000 bytes, or sent chunked, are answered 406. The ENX family's paths have the
        // limit of their own contract (64,000 bytes, a 400 in ENX's form).
        let bodyLimit = StandardRouter.BodyLimit(
            maxBytes: 10_000, status: .notAcceptable, requireLength: true,
            exemptPathPrefixes: configuration.families.enx ? [ENXFamily.appPathPrefix] : []
        )

        let appRouter = StandardRouter.make(service: name, bodyLimit: bodyLimit)
        try api.registerHandlers(
            on: PathFilteredTransport(appRouter) { !internalPaths.contains($0) },
            configuration: StandardRouter.openAPIConfiguration,
            middlewares: middlewares
        )
        let internalRouter = StandardRouter.make(service: name, bodyLimit: bodyLimit, callers: (internalCallers, CallerPermissions.verification))
        try api.registerHandlers(
            on: PathFilteredTransport(internalRouter) { internalPaths.contains($0) },
            configuration: StandardRouter.openAPIConfiguration,
            middlewares: middlewares
        )

        // The families' own issuance endpoints, in their own wire formats (not OpenAPI-generated: their errors are
        // plain text and Firebase's callable errors, not this service's JSON errors).
        let issuerRouter = Router(context: BasicRequestContext.self)
        issuerRouter.add(middleware: RequestMetricsMiddleware(service: name))
        issuerRouter.add(middleware: JSONErrorMiddleware())
        issuerRouter.addLivenessRoute()
        IssuerAPI(
            issuers: IssuerStore(database: database), authorities: authorities, codes: codes, lifetimes: lifetimes, limit: configuration.issuerRateLimit,
            codesIssued: api.codesIssued, statistics: statistics.counter, clock: environment.clock, random: environment.random, logger: logger
        ).register(on: issuerRouter, families: configuration.families)

        // The ENX family (docs/enx.md): its device endpoints for phones, its issuer endpoints for authorities' systems.
        let enx: ENXFamily? = configuration.families.enx ? ENXFamily(
            configuration: configuration.enx,
            context: ENXFamily.Context(
                database: database, codeHashes: codeHashes,
                authorities: ENXAuthorityDirectory(
                    authorities: authorities, signingKeys: signingKeys, database: database, issuerLimit: configuration.issuerRateLimit,
                    clock: environment.clock, random: environment.random
                ),
                latency: latency, codeGuesses: configuration.codeGuesses, statistics: statistics.counter,
                figures: ENXFamily.Figures(
                    issued: VerificationFigures.codesIssued, issuedByAuthority: VerificationFigures.codesIssuedByAuthority,
                    issuedByIssuer: VerificationFigures.codesIssuedByIssuer, claimed: VerificationFigures.codesRedeemed
                ),
                clock: environment.clock, random: environment.random, logger: logger
            )
        ) : nil
        enx?.registerDevice(on: appRouter)
        enx?.registerIssuer(on: issuerRouter)

        let retention = VerificationRetention(database: database, lifetimes: lifetimes, rateLimitWindow: configuration.teleTANRateLimit.window)
        var jobs: [any Service] = [
            tally.job(service: name, logger: logger),
            statistics.flusher,
            PeriodicJob(name: "verification.retention", interval: configuration.retentionInterval, logger: logger) {
                let deleted = try await retention.run(now: environment.clock.now())
                if deleted.values.contains(where: { $0 > 0 }) {
                    logger.info("retention applied", metadata: deleted.mapValues { .stringConvertible($0) })
                }
            },
        ]
        if let enx { jobs.append(enx.retention(interval: configuration.retentionInterval)) }
        if configuration.signingKeys.jwksURL != nil {
            let source = configuration.signingKeys
            jobs.append(PeriodicJob(name: "verification.jwks", interval: configuration.jwksRefreshInterval, logger: logger) {
                try await source.refreshJWKS(into: keys, logger: logger)
            })
        }
        return ServiceBundle(
            name: name,
            listeners: [
                HTTPListener(
                    name: appListener, address: configuration.appListener, router: appRouter, serviceName: name, logger: logger,
                    limits: configuration.common.listenerLimits, clientAddresses: ClientAddressResolver(trustedProxies: configuration.trustedProxies)
                ),
                HTTPListener(
                    name: internalListener, address: configuration.internalListener, router: internalRouter, serviceName: name,
                    logger: logger, limits: configuration.common.listenerLimits
                ),
                HTTPListener(
                    name: issuerListener, address: configuration.issuerListener, router: issuerRouter, serviceName: name,
                    logger: logger, limits: configuration.common.listenerLimits
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

    /// Applies migrations and closes the database.
    public static func commonSettings(_ settings: Settings) throws -> CommonSettings {
        return try VerificationConfiguration.commonSettings(settings)
    }

    public static func migrate(_ common: CommonSettings, environment: ServiceEnvironment) async throws {
        let database = try await Database.open(common, migrator: VerificationMigrations.migrator, environment: environment.named(name))
        await database.shutdown()
    }
}
