import ExposureCore

/// The statistics settings every counting service reads the same way (docs/statistics.md).
public struct StatisticsSettings: Sendable {
    /// The systems allowed to read the statistics API, each by its own token (`STATISTICS_API_TOKENS`,
    /// `reader=token,reader=token`, or the same text in `STATISTICS_API_TOKENS_FILE`); kept as SHA-256 digests and
    /// compared in constant time, as the service tokens are. Unset: the API refuses every request.
    public var readers: ServiceTokens
    /// How often a replica adds its counts to the database (`STATISTICS_FLUSH_INTERVAL`, default 60 s): what a crash
    /// can lose at most.
    public var flushInterval: Duration
    /// Days a count is kept (`STATISTICS_RETENTION_DAYS`, default 731: two years and a day).
    public var retentionDays: Int

    public init(readers: ServiceTokens = ServiceTokens([:]), flushInterval: Duration = .seconds(60), retentionDays: Int = 731) {
        self.readers = readers
        self.flushInterval = flushInterval
        self.retentionDays = retentionDays
    }

    public init(_ settings: Settings) throws(ConfigurationError) {
        self.init(
            readers: try ServiceTokens.optional(settings, variable: "STATISTICS_API_TOKENS") ?? ServiceTokens([:]),
            flushInterval: try settings.duration("STATISTICS_FLUSH_INTERVAL", default: .seconds(60), minimum: .seconds(1)),
            retentionDays: try settings.int("STATISTICS_RETENTION_DAYS", default: 731, in: 1...36_600)
        )
    }
}
