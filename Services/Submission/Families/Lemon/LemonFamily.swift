import ExposureCore
import Hummingbird
import OpenAPIHummingbird
import OpenAPIRuntime
import ServiceLifecycle
import SubmissionCore
import SubmissionDomain

/// The LEMON tracing-app API on the submission service's app listener (docs/decisions.md, "LEMON"): one base URL,
/// no new service. Its tables are the submission service's (`lemon_*`, migration 8).
public struct LemonFamily: SubmissionFamily {
    public let name = "lemon"
    let api: LemonAPI
    let middlewares: [any ServerMiddleware]
    let configuration: LemonConfiguration
    let context: SubmissionFamilyContext

    /// The family with its keys and reference data, when it is enabled (nil otherwise). Push tokens stored in the clear
    /// by versions before migration 13 are sealed first.
    public static func make(_ configuration: LemonConfiguration, context: SubmissionFamilyContext) async throws -> LemonFamily? {
        guard configuration.enabled, let serverKeys = configuration.serverKeys, let jwtKey = configuration.jwtKey else { return nil }
        let environment = context.environment, database = context.database
        let catalog = try LemonCatalogFiles.load(extraDirectory: configuration.dataDirectory)
        let tokens = await LemonAccessTokens(privateKey: jwtKey, clock: environment.clock, random: environment.random)
        let devices = LemonDeviceStore(database: database, sealer: serverKeys.sessionKeySealer, pushTokens: serverKeys.pushTokenSealer)
        // The key sealing push tokens is not the database's.
        let sealed = try await devices.sealStoredPushTokens()
        if sealed > 0 { environment.logger.notice("sealed LEMON push tokens stored in the clear", metadata: ["count": "\(sealed)"]) }
        let api = LemonAPI(
            catalog: catalog,
            deviceRules: LemonDeviceRules(catalog: catalog),
            surveyValidator: LemonSurveyValidator(catalog: catalog),
            serverKeys: serverKeys,
            appIdHasher: TypedSecretHasher(keys: configuration.appIdHashKeys, acceptsLegacy: false),
            tokens: tokens,
            devices: devices,
            surveys: LemonSurveyStore(database: database),
            surveyQuota: LemonSurveyQuotaStore(database: database, quota: serverKeys.surveyQuota(limit: configuration.surveysPerDeviceDay)),
            statistics: LemonStatisticsStore(database: database),
            statisticsSource: (configuration.statisticsSource, configuration.statisticsSourceURL),
            deviceLimit: TokenBucket(capacity: configuration.deviceBurst, refillPerSecond: Double(configuration.deviceRate), clock: environment.clock),
            payloadEncryption: configuration.payloadEncryption,
            environment: environment
        )
        let middlewares: [any ServerMiddleware] = [
            LemonEnvelopeMiddleware(
                tokens: tokens, devices: devices, maxBodyBytes: context.maxBodyBytes, payloadEncryption: configuration.payloadEncryption,
                random: environment.random, logger: environment.logger
            ),
            OpenAPIErrorMiddleware(logger: environment.logger),
        ]
        return LemonFamily(api: api, middlewares: middlewares, configuration: configuration, context: context)
    }

    /// Every route of `openapi/lemon.yaml`.
    public func register(on router: Router<BasicRequestContext>) throws {
        try api.registerHandlers(on: router, configuration: StandardRouter.openAPIConfiguration, middlewares: middlewares)
    }

    /// The import of the case statistics the app shows, from a file (`LEMON_STATISTICS_FILE`) or a URL
    /// (`LEMON_STATISTICS_URL`, fetched with the service's client, its timeout and size limit per request).
    public var jobs: [any Service] {
        let configuration = configuration, database = context.database, environment = context.environment
        if let file = configuration.statisticsFile {
            return [PeriodicJob(name: "submission.lemon-statistics", interval: configuration.statisticsInterval, logger: environment.logger) {
                try await LemonStatisticsImport.run(file: file, day: nil, configuration: configuration, database: database, clock: environment.clock)
            }]
        }
        if let url = configuration.statisticsURL {
            let http = context.http.client
            return [PeriodicJob(name: "submission.lemon-statistics", interval: configuration.statisticsInterval, logger: environment.logger) {
                await LemonStatisticsImport.scheduled(
                    url: url, http: http, configuration: configuration, database: database, clock: environment.clock, logger: environment.logger
                )
            }]
        }
        return []
    }
}
