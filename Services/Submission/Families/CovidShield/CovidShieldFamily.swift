import ExposureCore
import Logging
import Hummingbird
import OpenAPIHummingbird
import ServiceLifecycle
import SubmissionCore
import SubmissionDomain

/// The CovidShield app family (Canada's COVID Alert) on the submission service's app listener: `openapi/covidshield.yaml`
/// (claim a key pair with a one-time code, upload keys sealed in a NaCl box, retrieve signed hourly and daily
/// streams), its key pairs in `covidshield_key_pairs`, and the retention of dead pairs (docs/covidshield.md).
public struct CovidShieldFamily: SubmissionFamily {
    public let name = "covidshield"
    let handlers: CovidShieldHandlers
    let logger: Logger
    /// How often dead key pairs are deleted: with the service's retention (`RETENTION_INTERVAL`).
    let retentionInterval: Duration

    /// The handlers over the pairs sealed under the operator's key, retrieval under the operator's HMAC key (neither is
    /// ever generated). Pairs sealed by earlier versions under a key kept in the database move to the configured key.
    public static func make(_ configuration: CovidShieldConfiguration, context: SubmissionFamilyContext) async throws -> CovidShieldFamily {
        // The key sealing the pairs lives outside the database it protects.
        guard let encryptionKey = configuration.keyEncryptionKey else { throw CovidShieldConfiguration.keyEncryptionKeyMissing }
        guard let hmacKey = configuration.retrieveHMACKey else { throw CovidShieldConfiguration.retrieveHMACKeyMissing }
        let sealer = SecretSealer(key: encryptionKey)
        let keyPairs = CovidShieldKeyPairStore(database: context.database)
        let moved = try await keyPairs.resealPairsUnderConfiguredKey(sealer)
        if moved > 0 {
            context.environment.logger.notice(
                "CovidShield key pairs moved from the key earlier versions kept in the database to COVIDSHIELD_KEY_ENCRYPTION_KEY; that key is deleted",
                metadata: ["pairs": "\(moved)"]
            )
        }
        let handlers = CovidShieldHandlers(
            configuration: configuration,
            homeCountry: context.rules.homeCountry,
            keyPairs: keyPairs,
            keys: context.keys,
            codes: context.codes,
            sealer: sealer,
            retrieval: CovidShieldRetrievalRules(hmacKey: hmacKey),
            metrics: CovidShieldMetrics(tally: context.tally),
            statistics: context.statistics,
            environment: context.environment
        )
        return CovidShieldFamily(handlers: handlers, logger: context.environment.logger, retentionInterval: context.retentionInterval)
    }

    public func register(on router: Router<BasicRequestContext>) throws {
        // Its paths are routed as the reference's router did before the generated handlers see them (and so is every
        // route registered after this, which the middleware passes on untouched).
        router.add(middleware: CovidShieldRouteMiddleware(retrieval: handlers.retrieval, clock: handlers.environment.clock))
        try handlers.registerHandlers(
            on: router, configuration: StandardRouter.openAPIConfiguration,
            middlewares: [OpenAPIErrorMiddleware(logger: logger), CovidShieldAnswerHeaders()]
        )
    }

    /// Dead key pairs are deleted: their sealed secrets are of no more use.
    public var jobs: [any Service] {
        let pairs = handlers.keyPairs, clock = handlers.environment.clock, logger = logger
        return [PeriodicJob(name: "submission.covidshield-retention", interval: retentionInterval, logger: logger) {
            let deleted = try await pairs.purgeDead(now: clock.now())
            if deleted > 0 { logger.info("dead covidshield key pairs deleted", metadata: ["deleted": "\(deleted)"]) }
        }]
    }
}
