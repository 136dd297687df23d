import ExposureCore
import ExposureStatistics
import Foundation
import TestResultDomain

/// Everything the test-result service reads from its environment (see docs/operations.md).
public struct TestResultConfiguration: Sendable {
    /// `MANAGEMENT_PORT` when unset; the all-in-one suite's `healthcheck` asks it too.
    public static let defaultManagementPort = 8022

    public var common: CommonSettings
    /// Lab-facing listener (`PORT`, default 8020).
    public var labListener: ListenerAddress
    /// Internal listener for the verification service (`INTERNAL_PORT`, default 8021, on `INTERNAL_BIND_HOST`).
    public var internalListener: ListenerAddress
    /// The services allowed on the internal listener, each with its token (`INTERNAL_API_TOKENS`, required to serve).
    public var internalCallers: ServiceTokens?
    /// Results per request (`MAX_BATCH_SIZE`, default 1000).
    public var maxBatchSize: Int
    /// Request body limit in bytes (`MAX_BODY_BYTES`, default 512 KiB: a full batch of 1000 fits).
    public var maxBodyBytes: Int
    public var retention: RetentionPolicy
    /// How often retention runs (`RETENTION_INTERVAL`, default 1h).
    public var retentionInterval: Duration
    /// The daily statistics' readers, flush interval and retention (`STATISTICS_*`, docs/statistics.md).
    public var statistics: StatisticsSettings
    /// HTTPS on the lab listener (`TLS_CERT_FILE`, `TLS_KEY_FILE`); labs may then authenticate with a registered
    /// client certificate instead of an API key.
    public var labTLS: ListenerTLS?

    public init(_ settings: Settings) throws(ConfigurationError) {
        common = try Self.commonSettings(settings)
        labListener = ListenerAddress(host: common.bindHost, port: try settings.port("PORT", default: 8020))
        internalListener = ListenerAddress(host: common.internalBindHost, port: try settings.port("INTERNAL_PORT", default: 8021))
        internalCallers = try ServiceTokens.optional(settings)
        maxBatchSize = try settings.int("MAX_BATCH_SIZE", default: 1000, in: 1...100_000)
        maxBodyBytes = try settings.int("MAX_BODY_BYTES", default: 512 * 1024, in: 1024...64 * 1024 * 1024)
        retention = RetentionPolicy(
            redeemAfter: try settings.duration("RESULT_REDEEM_AFTER", default: .seconds(21 * 86400), minimum: .seconds(3600)),
            deleteAfter: try settings.duration("RESULT_DELETE_AFTER", default: UsedTestRetention.default, minimum: .seconds(3600))
        )
        guard retention.deleteAfter >= retention.redeemAfter else {
            throw ConfigurationError(variable: "RESULT_DELETE_AFTER", reason: "must not be shorter than RESULT_REDEEM_AFTER")
        }
        // Verification forgets used GUIDs after USED_KEY_RETENTION; a result kept longer could be registered again
        // (see VerificationConfiguration). The same variable as verification's, with its default.
        let usedKeyRetention = try settings.duration("USED_KEY_RETENTION", default: UsedTestRetention.default, minimum: .seconds(86400))
        guard retention.deleteAfter <= usedKeyRetention else {
            throw ConfigurationError(
                variable: "RESULT_DELETE_AFTER",
                reason: "must not be longer than USED_KEY_RETENTION (\(usedKeyRetention)), how long verification remembers a used test"
            )
        }
        retentionInterval = try settings.duration("RETENTION_INTERVAL", default: .seconds(3600), minimum: .seconds(1))
        statistics = try StatisticsSettings(settings)
        labTLS = try ListenerTLS(settings, requestClientCertificate: true)
    }
}

extension TestResultConfiguration {
    /// The settings every service reads the same way, with this service's defaults: all that `migrate` needs, so
    /// that a migration job is given the database and none of the service's secrets.
    public static func commonSettings(_ settings: Settings) throws(ConfigurationError) -> CommonSettings {
        try CommonSettings(settings, defaultDatabase: "sqlite://data/testresult.db", managementPort: defaultManagementPort)
    }
}
