import ExposureCore
import Hummingbird
import OpenAPIHummingbird
import OpenAPIRuntime
import SubmissionDomain

/// The LEMON tracing-app API on the submission service's app listener (docs/decisions.md, "LEMON"): one base URL,
/// no new service. Its tables are the submission service's (`lemon_*`, migration 8).
public enum LemonFamily {
    /// Registers every route of `openapi/lemon.yaml` on `router`, when the family is enabled.
    public static func register(
        on router: Router<BasicRequestContext>,
        configuration: LemonConfiguration,
        database: Database,
        maxBodyBytes: Int,
        environment: ServiceEnvironment
    ) async throws {
        guard configuration.enabled, let serverKeys = configuration.serverKeys, let jwtKey = configuration.jwtKey else { return }
        let catalog = try LemonCatalogFiles.load(extraDirectory: configuration.dataDirectory)
        let tokens = await LemonAccessTokens(privateKey: jwtKey, clock: environment.clock, random: environment.random)
        let devices = LemonDeviceStore(database: database, sealer: serverKeys.sessionKeySealer, pushTokens: serverKeys.pushTokenSealer)
        // Push tokens stored in the clear before migration 13 are sealed now (the key is not the database's).
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
        let logger = environment.logger
        try api.registerHandlers(
            on: router,
            configuration: StandardRouter.openAPIConfiguration,
            middlewares: [
                LemonEnvelopeMiddleware(
                    tokens: tokens, devices: devices, maxBodyBytes: maxBodyBytes, payloadEncryption: configuration.payloadEncryption,
                    random: environment.random, logger: logger
                ),
                OpenAPIErrorMiddleware(logger: logger),
            ]
        )
    }
}
