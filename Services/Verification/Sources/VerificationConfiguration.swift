import ExposureCore
import ExposureStatistics
import Foundation
import VerificationDomain
import VerificationENX

/// Everything the verification service reads from its environment (see docs/operations.md).
public struct VerificationConfiguration: Sendable {
    /// `MANAGEMENT_PORT` when unset; the all-in-one suite's `healthcheck` asks it too.
    public static let defaultManagementPort = 8012

    public var common: CommonSettings
    /// App-facing listener (`PORT`, default 8010).
    public var appListener: ListenerAddress
    /// Internal listener for submission and portal (`INTERNAL_PORT`, default 8011, on `INTERNAL_BIND_HOST`).
    public var internalListener: ListenerAddress
    /// Listener for the health-authority systems that issue one-time codes of other app families (`ISSUER_PORT`,
    /// default 8013, on `INTERNAL_BIND_HOST`): the families' own issuance endpoints, which apps never reach.
    public var issuerListener: ListenerAddress
    /// The services allowed on the internal listener, each with its token (`INTERNAL_API_TOKENS`, required to serve).
    public var internalCallers: ServiceTokens?
    /// This service's token at test-result's internal listener (`TESTRESULT_API_TOKEN`, required to serve).
    public var testResultToken: String?
    /// The test-result service's internal listener (`TESTRESULT_URL`).
    public var testResultURL: URL
    public var testResultPolicy: DownstreamPolicy
    /// Requests to the test-result service out at once (`TESTRESULT_CONCURRENCY`), one more while all of them are
    /// stalled; lookups that queue behind them go together in one request.
    public var testResultConcurrency: Int
    public var lifetimes: Lifetimes
    public var teleTANRateLimit: TeleTANRateLimit
    /// Failed teleTAN registrations allowed per client address, per network, for all apps together and from the
    /// reserve for networks without a wrong guess (`TELETAN_…`, `GuessLimits`), in each replica.
    public var teleTANGuesses: GuessLimits
    /// The region each kind of one-time code is issued for (`COVIDSHIELD_REGION`, default `ON`; `PROTEGO_REGION`,
    /// default `PL`): the portal's codes get it, and an issuer is bound to it unless added with another.
    public var codeRegions: OneTimeCodeRegions
    /// The app families whose one-time codes are issued here (`COVIDSHIELD_ENABLED`, `PROTEGO_ENABLED`, as submission
    /// reads them): a disabled family's issuer endpoints are not there and the portal cannot issue its codes.
    public var families: AppFamilies
    /// The ENX family's settings (`ENX_…`, docs/enx.md), used when `ENX_ENABLED`.
    public var enx: ENXConfiguration
    /// Codes one issuer may issue through the issuer listener per clock hour (`ISSUER_CODES_PER_HOUR`, default 1000)
    /// and per UTC day (`ISSUER_CODES_PER_DAY`, default 5000), shared by all replicas.
    public var issuerRateLimit: IssuerRateLimit
    /// Failed redemptions of one-time codes allowed per phone, per network, for all phones together and from the
    /// reserve (`ONE_TIME_CODE_…`, `GuessLimits`), per code kind, in each replica; the phone's origin is what the
    /// submission service passes on (`OneTimeCodeRedemption.origin`).
    public var codeGuesses: GuessLimits
    /// Proxies whose `X-Forwarded-For` is believed on the app listener (`TRUSTED_PROXIES`, addresses or CIDR ranges;
    /// default none: the connection's peer is the client).
    public var trustedProxies: [IPNetwork]
    /// The keys teleTANs are stored under as HMAC-SHA256 (`TELETAN_HASH_KEYS` or `TELETAN_HASH_KEYS_FILE`:
    /// `id:base64` entries, the current key first, older ones still accepted on lookup). Required.
    public var teleTANHashKeys: [SecretHashKey]
    /// The AES-256 key sealing the health authorities' private signing keys (`SIGNING_KEY_ENCRYPTION_KEY` or `_FILE`,
    /// 64 hex digits), kept outside the database. Without it the authorities' public keys are still published, but no
    /// key is made and nothing is signed with one.
    public var signingKeyEncryptionKey: [UInt8]?
    /// The keys officers' tokens are signed with, each with the issuer and audience its tokens must carry:
    /// `JWT_PUBLIC_KEY_FILES` (entries `path|issuer|audience`) and `JWT_JWKS_URL` with `JWT_JWKS_ISSUER` and
    /// `JWT_JWKS_AUDIENCE`.
    public var signingKeys: SigningKeySource
    /// How an officer's token names the officer's health authority: the claim `authority`; else the claim
    /// `OFFICER_AUTHORITY_CLAIM` names (default none; an identity provider's, say `groups`: a string or a list of
    /// which exactly one element names an authority); else `OFFICER_DEFAULT_AUTHORITY` (default `default`; set empty,
    /// a token that names no authority is refused).
    public var officerAuthorities: OfficerAuthorityPolicy
    public var jwksRefreshInterval: Duration
    public var retentionInterval: Duration
    /// The daily statistics' readers, flush interval and retention (`STATISTICS_*`, docs/statistics.md).
    public var statistics: StatisticsSettings

    public init(_ settings: Settings) throws(ConfigurationError) {
        common = try Self.commonSettings(settings)
        appListener = ListenerAddress(host: common.bindHost, port: try settings.port("PORT", default: 8010))
        internalListener = ListenerAddress(host: common.internalBindHost, port: try settings.port("INTERNAL_PORT", default: 8011))
        // 8012 is the management listener's.
        issuerListener = ListenerAddress(host: common.internalBindHost, port: try settings.port("ISSUER_PORT", default: 8013))
        internalCallers = try ServiceTokens.optional(settings)
        testResultToken = try ServiceTokens.callerToken(settings, variable: "TESTRESULT_API_TOKEN")
        testResultURL = try settings.url("TESTRESULT_URL", default: "http://localhost:8021")
        testResultPolicy = DownstreamPolicy(
            timeout: try settings.duration("TESTRESULT_TIMEOUT", default: .seconds(3), minimum: .milliseconds(10)),
            attempts: try settings.int("TESTRESULT_ATTEMPTS", default: 3, in: 1...10)
        )
        testResultConcurrency = try settings.int("TESTRESULT_CONCURRENCY", default: 1, in: 1...64)
        var lifetimes = Lifetimes()
        lifetimes.tan = try settings.duration("TAN_VALIDITY", default: lifetimes.tan, minimum: .seconds(60))
        lifetimes.tanReservation = try settings.duration("TAN_RESERVATION_LEASE", default: lifetimes.tanReservation, minimum: .seconds(10))
        lifetimes.teleTANTest = try settings.duration("TELETAN_TEST_VALIDITY", default: lifetimes.teleTANTest, minimum: .seconds(60))
        lifetimes.teleTANEvent = try settings.duration("TELETAN_EVENT_VALIDITY", default: lifetimes.teleTANEvent, minimum: .seconds(60))
        lifetimes.sessionRetention = try settings.duration("SESSION_RETENTION", default: lifetimes.sessionRetention, minimum: .seconds(86400))
        lifetimes.usedKeyRetention = try settings.duration("USED_KEY_RETENTION", default: lifetimes.usedKeyRetention, minimum: .seconds(86400))
        self.lifetimes = lifetimes
        // A used GUID forgotten while test-result still holds its result could be registered again and, while the
        // result is positive, mint new TANs: the reference's known hole. The same variable as test-result's.
        let resultDeleteAfter = try settings.duration("RESULT_DELETE_AFTER", default: UsedTestRetention.default, minimum: .seconds(3600))
        guard lifetimes.usedKeyRetention >= resultDeleteAfter else {
            throw ConfigurationError(
                variable: "USED_KEY_RETENTION",
                reason: "must not be shorter than RESULT_DELETE_AFTER (\(resultDeleteAfter)), how long test-result keeps a result"
            )
        }
        teleTANRateLimit = TeleTANRateLimit(
            limit: try settings.int("TELETAN_RATE_LIMIT", default: 1000, in: 1...1_000_000),
            perOfficer: try settings.int("TELETAN_OFFICER_RATE_LIMIT", default: 120, in: 1...1_000_000),
            window: try settings.duration("TELETAN_RATE_WINDOW", default: .seconds(3600), minimum: .seconds(1))
        )
        teleTANGuesses = try GuessLimits(settings, prefix: "TELETAN", defaults: .teleTANs)
        codeRegions = OneTimeCodeRegions(
            covidShield: try Self.region(settings, "COVIDSHIELD_REGION", default: "ON"),
            proteGO: try Self.region(settings, "PROTEGO_REGION", default: "PL")
        )
        families = try AppFamilies(settings)
        enx = try ENXConfiguration(settings)
        issuerRateLimit = IssuerRateLimit(
            perHour: try settings.int("ISSUER_CODES_PER_HOUR", default: IssuerRateLimit().perHour, in: 1...1_000_000),
            perDay: try settings.int("ISSUER_CODES_PER_DAY", default: IssuerRateLimit().perDay, in: 1...100_000_000)
        )
        codeGuesses = try GuessLimits(settings, prefix: "ONE_TIME_CODE", defaults: .oneTimeCodes)
        trustedProxies = try settings.networks("TRUSTED_PROXIES")
        teleTANHashKeys = try SecretHashKey.parseList(try settings.requiredString("TELETAN_HASH_KEYS"), variable: "TELETAN_HASH_KEYS")
        signingKeyEncryptionKey = try settings.hexKey("SIGNING_KEY_ENCRYPTION_KEY", bytes: SecretSealer.keyBytes...SecretSealer.keyBytes)
        if families.enx, signingKeyEncryptionKey == nil {
            // ENX tokens and certificates are signed with the health authorities' own keys, stored sealed under it.
            throw ConfigurationError(variable: "ENX_ENABLED", reason: "needs SIGNING_KEY_ENCRYPTION_KEY (or _FILE): the authorities' signing keys, which sign ENX certificates, are sealed under it")
        }
        for retired in ["JWT_ISSUER", "JWT_AUDIENCE"] where try settings.raw(retired) != nil {
            throw ConfigurationError(
                variable: retired,
                reason: "is replaced by an issuer and audience per key source: JWT_PUBLIC_KEY_FILES entries path|issuer|audience, JWT_JWKS_ISSUER and JWT_JWKS_AUDIENCE"
            )
        }
        var keyFiles: [SigningKeySource.KeyFile] = []
        for (index, entry) in try settings.list("JWT_PUBLIC_KEY_FILES", default: []).enumerated() {
            let parts = entry.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 3, !parts.contains(where: \.isEmpty) else {
                throw ConfigurationError(variable: "JWT_PUBLIC_KEY_FILES", reason: "entry \(index + 1) must be path|issuer|audience, got '\(entry)'")
            }
            try SettingFile.check(parts[0], variable: "JWT_PUBLIC_KEY_FILES", holds: .publicData)
            keyFiles.append(SigningKeySource.KeyFile(path: parts[0], binding: TokenBinding(issuer: parts[1], audience: parts[2])))
        }
        var jwksURL: URL?
        var jwksBinding: TokenBinding?
        if try settings.raw("JWT_JWKS_URL") != nil {
            jwksURL = try settings.url("JWT_JWKS_URL", default: "")
            jwksBinding = TokenBinding(issuer: try settings.requiredString("JWT_JWKS_ISSUER"), audience: try settings.requiredString("JWT_JWKS_AUDIENCE"))
        }
        signingKeys = SigningKeySource(jwksURL: jwksURL, jwksBinding: jwksBinding, publicKeyFiles: keyFiles)
        officerAuthorities = OfficerAuthorityPolicy(
            claim: try settings.optionalString("OFFICER_AUTHORITY_CLAIM"),
            defaultAuthority: try Self.defaultAuthority(settings)
        )
        jwksRefreshInterval = try settings.duration("JWKS_REFRESH_INTERVAL", default: .seconds(300), minimum: .seconds(10))
        retentionInterval = try settings.duration("RETENTION_INTERVAL", default: .seconds(3600), minimum: .seconds(1))
        statistics = try StatisticsSettings(settings)
    }

    /// `OFFICER_DEFAULT_AUTHORITY`: `default` when unset, none when set empty, else an authority's id.
    private static func defaultAuthority(_ settings: Settings) throws(ConfigurationError) -> String? {
        guard let value = try settings.stringOrEmpty("OFFICER_DEFAULT_AUTHORITY") else { return Authority.defaultID }
        if value.isEmpty { return nil }
        guard AuthorityID.isWellFormed(value) else {
            throw ConfigurationError(variable: "OFFICER_DEFAULT_AUTHORITY", reason: "must be an authority's id (a-z, 0-9 and '-', at most 32) or empty, got '\(value)'")
        }
        return value
    }

    private static func region(_ settings: Settings, _ variable: String, default defaultValue: String) throws(ConfigurationError) -> String {
        let region = try settings.string(variable, default: defaultValue)
        guard OneTimeCodeRegions.isValid(region) else {
            throw ConfigurationError(variable: variable, reason: "must be 1 to 16 letters, digits, '_' or '-', got '\(region)'")
        }
        return region
    }
}

extension VerificationConfiguration {
    /// The settings every service reads the same way, with this service's defaults: all that `migrate` needs, so
    /// that a migration job is given the database and none of the service's secrets.
    public static func commonSettings(_ settings: Settings) throws(ConfigurationError) -> CommonSettings {
        try CommonSettings(settings, defaultDatabase: "sqlite://data/verification.db", managementPort: defaultManagementPort)
    }
}
