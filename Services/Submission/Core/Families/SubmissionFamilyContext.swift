import ExposureCore
import ExposureStatistics
import SubmissionDomain

/// What the submission service gives every family it registers (`SubmissionFamily`): the parts all families share,
/// made once per process.
public struct SubmissionFamilyContext: Sendable {
    /// The service's one database: the key store and each family's own tables (`SubmissionMigrations`).
    public var database: Database
    /// The one key store every family's keys go into, and that every export reads.
    public var keys: DiagnosisKeyStore
    /// The two phases of an upload with a TAN spent at verification (CWA, ProteGO).
    public var intake: KeyIntake
    /// Verification's one-time codes of the families (CovidShield codes, ProteGO PINs).
    public var codes: OneTimeCodes
    /// The service's checks of keys: the home country, the risk mapping (`HOME_COUNTRY`, `TRANSMISSION_RISK_…`).
    public var rules: SubmissionValidator.Rules
    /// The hour's counts for `/metrics` (each family's metrics object writes to it).
    public var tally: HourlyTally
    /// Daily statistics (docs/statistics.md).
    public var statistics: DailyCounter
    /// The service's outbound HTTP client, shut down with the service.
    public var http: DownstreamHTTPClient
    /// The app listener's body limit (`MAX_BODY_BYTES`).
    public var maxBodyBytes: Int
    /// How often retention runs (`RETENTION_INTERVAL`): a family's own retention runs as often.
    public var retentionInterval: Duration
    public var environment: ServiceEnvironment

    public init(
        database: Database, keys: DiagnosisKeyStore, intake: KeyIntake, codes: OneTimeCodes, rules: SubmissionValidator.Rules,
        tally: HourlyTally, statistics: DailyCounter, http: DownstreamHTTPClient, maxBodyBytes: Int, retentionInterval: Duration,
        environment: ServiceEnvironment
    ) {
        self.database = database
        self.keys = keys
        self.intake = intake
        self.codes = codes
        self.rules = rules
        self.tally = tally
        self.statistics = statistics
        self.http = http
        self.maxBodyBytes = maxBodyBytes
        self.retentionInterval = retentionInterval
        self.environment = environment
    }
}
