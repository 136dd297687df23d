import ExposureCore
import ExposureStatistics
import Foundation
import SubmissionCore
import SubmissionCovidShield
import SubmissionDomain
import SubmissionLemon
import SubmissionProteGO

/// Everything the submission service reads from its environment (see docs/operations.md).
public struct SubmissionConfiguration: Sendable {
    /// `MANAGEMENT_PORT` when unset; the all-in-one suite's `healthcheck` asks it too.
    public static let defaultManagementPort = 8032

    public var common: CommonSettings
    /// The app-facing listener (`PORT`, default 8030).
    public var listener: ListenerAddress
    /// The verification service's internal listener (`VERIFICATION_URL`, default http://localhost:8011).
    public var verificationURL: URL
    /// This service's token at verification's internal listener (`VERIFICATION_API_TOKEN`, required to serve).
    public var verificationToken: String?
    /// Proxies whose `X-Forwarded-For` is believed on the app listener (`TRUSTED_PROXIES`, addresses or CIDR ranges;
    /// default none: the connection's peer is the phone): the phone's address decides the origin of its one-time code
    /// redemptions (`PhoneOrigins`).
    public var trustedProxies: [IPNetwork]
    /// Per attempt (`VERIFICATION_TIMEOUT`, default 3s) and attempts on connection failures and 502/503/504
    /// (`VERIFICATION_ATTEMPTS`, default 3).
    public var verification: DownstreamPolicy
    /// Request body limit in bytes (`MAX_BODY_BYTES`, default 100 KB); larger bodies get 400 before they are read.
    public var maxBodyBytes: Int
    /// Validation rules: `MAX_KEYS` (14), `HOME_COUNTRY` (DE), `SUPPORTED_COUNTRIES` (EU + EEA),
    /// `RETENTION_DAYS` (14), `DSOS_TO_TRL` and `TRL_TO_DSOS` (see `TransmissionRiskMapping`).
    public var rules: SubmissionValidator.Rules
    /// Random keys stored per real key, plus one (`KEY_PADDING_MULTIPLIER`, default 1 = off).
    public var keyPaddingMultiplier: Int
    /// How often the recovery job settles uploads left pending, and how long an upload must have been pending before
    /// it does (`RECOVERY_INTERVAL`, default 60 s; `PendingUploadRecovery`).
    public var recoveryInterval: Duration
    /// How often retention runs (`RETENTION_INTERVAL`, default 1h).
    public var retentionInterval: Duration
    /// The daily statistics' readers, flush interval and retention (`STATISTICS_*`, docs/statistics.md).
    public var statistics: StatisticsSettings
    /// The distribution job (export files, indexes, app configuration) and serving its tree.
    public var distribution: DistributionConfiguration
    /// The app families served beside the CWA one (`COVIDSHIELD_ENABLED`, `PROTEGO_ENABLED`; LEMON: `lemon.enabled`).
    public var families: AppFamilies
    /// The CovidShield app family's adapter on the same listener (docs/covidshield.md).
    public var covidShield: CovidShieldConfiguration
    /// The LEMON tracing-app API on the app listener (`LEMON_ENABLED`, default off; `LemonConfiguration`).
    public var lemon: LemonConfiguration
    /// The ProteGO Safe adapter (`PROTEGO_*`).
    public var protego: ProteGOConfiguration

    /// - Parameter serveExportsByDefault: whether `SERVE_EXPORTS` defaults to on (the all-in-one launcher).
    public init(_ settings: Settings, serveExportsByDefault: Bool = false) throws(ConfigurationError) {
        // A real submission holds a connection only for its own statements (no transaction waits on verification).
        // PostgreSQL opens them on demand; SQLite uses at most 4.
        common = try Self.commonSettings(settings)
        listener = ListenerAddress(host: common.bindHost, port: try settings.port("PORT", default: 8030))

        verificationURL = try settings.url("VERIFICATION_URL", default: "http://localhost:8011")
        verificationToken = try ServiceTokens.callerToken(settings, variable: "VERIFICATION_API_TOKEN")
        trustedProxies = try settings.networks("TRUSTED_PROXIES")
        verification = DownstreamPolicy(
            timeout: try settings.duration("VERIFICATION_TIMEOUT", default: .seconds(3), minimum: .milliseconds(100)),
            attempts: try settings.int("VERIFICATION_ATTEMPTS", default: 3, in: 1...10)
        )
        recoveryInterval = try settings.duration("RECOVERY_INTERVAL", default: .seconds(60), minimum: .seconds(1))
        maxBodyBytes = try settings.int("MAX_BODY_BYTES", default: 100_000, in: 1024...10_000_000)

        let home = try settings.string("HOME_COUNTRY", default: "DE")
        guard Countries.isAlpha2(home) else {
            throw ConfigurationError(variable: "HOME_COUNTRY", reason: "must be an upper-case ISO 3166 alpha-2 code, got '\(home)'")
        }
        let supported = try settings.list("SUPPORTED_COUNTRIES", default: Countries.europeanDefault)
        if let bad = supported.first(where: { !Countries.isAlpha2($0) }) {
            throw ConfigurationError(variable: "SUPPORTED_COUNTRIES", reason: "must list upper-case ISO 3166 alpha-2 codes, got '\(bad)'")
        }
        guard supported.contains(home) else {
            throw ConfigurationError(variable: "SUPPORTED_COUNTRIES", reason: "must include HOME_COUNTRY (\(home))")
        }
        let mapping: TransmissionRiskMapping
        let daysToRisk = try settings.string("DSOS_TO_TRL", default: TransmissionRiskMapping.defaultDaysToRisk)
        let riskToDays = try settings.string("TRL_TO_DSOS", default: TransmissionRiskMapping.defaultRiskToDays)
        do {
            mapping = try TransmissionRiskMapping.parse(daysToRisk: daysToRisk, riskToDays: riskToDays)
        } catch {
            switch error {
            case .daysToRisk(let reason): throw ConfigurationError(variable: "DSOS_TO_TRL", reason: reason)
            case .riskToDays(let reason): throw ConfigurationError(variable: "TRL_TO_DSOS", reason: reason)
            }
        }
        rules = SubmissionValidator.Rules(
            maxKeys: try settings.int("MAX_KEYS", default: 14, in: 1...100),
            homeCountry: home,
            supportedCountries: Set(supported),
            retentionDays: try settings.int("RETENTION_DAYS", default: 14, in: 1...365),
            riskMapping: mapping
        )
        keyPaddingMultiplier = try settings.int("KEY_PADDING_MULTIPLIER", default: 1, in: 1...100)
        retentionInterval = try settings.duration("RETENTION_INTERVAL", default: .seconds(3600), minimum: .seconds(1))
        statistics = try StatisticsSettings(settings)
        distribution = try DistributionConfiguration(settings, country: home, serveExportsByDefault: serveExportsByDefault)
        families = try AppFamilies(settings)
        covidShield = try CovidShieldConfiguration(settings)
        lemon = try LemonConfiguration(settings)
        protego = try ProteGOConfiguration(settings)
    }
}

extension SubmissionConfiguration {
    /// The settings every service reads the same way, with this service's defaults: all that `migrate` needs, so
    /// that a migration job is given the database and none of the service's secrets.
    public static func commonSettings(_ settings: Settings) throws(ConfigurationError) -> CommonSettings {
        try CommonSettings(settings, defaultDatabase: "sqlite://data/submission.db", defaultPoolSize: 32, managementPort: defaultManagementPort)
    }
}

extension SubmissionConfiguration {
    /// Whether the distribution run writes (and `serve` serves) the ProteGO download output: the family enabled and
    /// its `PROTEGO_EXPORTS` on.
    public var writesProteGOExports: Bool { families.protego && protego.exports }
}
