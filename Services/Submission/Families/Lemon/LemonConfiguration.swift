import _CryptoExtras
import ExposureCore
import Foundation
import JWTKit
import SubmissionDomain

/// The LEMON tracing-app API's settings (docs/operations.md). Off unless `LEMON_ENABLED`; when on, its keys are
/// required, and a key that does not parse stops the service at start-up.
public struct LemonConfiguration: Sendable {
    public var enabled: Bool
    /// `LEMON_APPID_HASH_KEYS`: HMAC keys (`id:base64`, current first) under which AppIds are stored.
    public var appIdHashKeys: [SecretHashKey]
    /// `LEMON_ENCRYPTION_KEY` (pre-master secrets) and `LEMON_SIGNING_KEY` (the answer's signature): RSA private keys
    /// in PEM, 2048 bits or more; `_FILE` variants read them from files.
    public var serverKeys: LemonServerKeys?
    /// `LEMON_JWT_KEY`: the P-256 private key (PEM) that signs access tokens.
    public var jwtKey: ES256PrivateKey?
    /// `LEMON_DEVICE_RATE` (per second, default 20) and `LEMON_DEVICE_BURST` (default 100): the limit on
    /// `POST /api/v1/devices` across all callers, beside each AppId's lockout.
    public var deviceRate: Int
    public var deviceBurst: Int
    /// `LEMON_DATA_DIRECTORY`: files that add to or replace the bundled reference data (`symptoms/<xx>.json`,
    /// `countries.json`, `languages.json`).
    public var dataDirectory: String?
    /// `LEMON_STATISTICS_FILE`: a JHU CSSE daily report the service imports every `LEMON_STATISTICS_INTERVAL`
    /// (default 1h) when set; `submission-service lemon-import <file>` imports one at once.
    public var statisticsFile: String?
    /// `LEMON_STATISTICS_URL`: the same report fetched over HTTP(S) by the service every `LEMON_STATISTICS_INTERVAL`
    /// (instead of `LEMON_STATISTICS_FILE`), within `LEMON_STATISTICS_TIMEOUT` (default 30s) and up to
    /// `LEMON_STATISTICS_MAX_BYTES` (default 16 MiB); a failed fetch keeps the figures imported before.
    public var statisticsURL: String?
    public var statisticsTimeout: Duration
    public var statisticsMaxBytes: Int
    public var statisticsInterval: Duration
    /// `LEMON_STATISTICS_SOURCE` and `LEMON_STATISTICS_SOURCE_URL`: what the statistics answers name as their source.
    public var statisticsSource: String
    public var statisticsSourceURL: String
    /// `LEMON_AGGREGATE_MIN_COUNT` (k, default 10): survey counts below it are exported as `<k`.
    public var aggregateMinimumCount: Int
    /// `LEMON_PAYLOAD_ENCRYPTION` (default off): every request and answer body after `POST /api/v1/devices` is
    /// sealed with the session's keys (`LemonPayloadCipher`).
    public var payloadEncryption: Bool
    /// `LEMON_SURVEYS_PER_DEVICE_DAY` (default 3): surveys one device may send per day (UTC); more are 429. The app
    /// sends one when its user finishes the survey (seed 000), which happens a few times in an illness, not many times
    /// a day: 3 leaves room for a correction and a retry, and keeps one device far below the aggregates' k.
    public var surveysPerDeviceDay: Int

    public init(_ settings: Settings) throws(ConfigurationError) {
        enabled = try settings.bool("LEMON_ENABLED", default: false)
        deviceRate = try settings.int("LEMON_DEVICE_RATE", default: 20, in: 1...100_000)
        deviceBurst = try settings.int("LEMON_DEVICE_BURST", default: 100, in: 1...1_000_000)
        dataDirectory = try settings.optionalString("LEMON_DATA_DIRECTORY")
        statisticsFile = try settings.optionalString("LEMON_STATISTICS_FILE")
        statisticsURL = try settings.optionalString("LEMON_STATISTICS_URL")
        if let url = statisticsURL {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host?.isEmpty == false else {
                throw ConfigurationError(variable: "LEMON_STATISTICS_URL", reason: "must be an http or https URL")
            }
            guard statisticsFile == nil else {
                throw ConfigurationError(variable: "LEMON_STATISTICS_URL", reason: "cannot be set with LEMON_STATISTICS_FILE: name one source")
            }
        }
        statisticsTimeout = try settings.duration("LEMON_STATISTICS_TIMEOUT", default: .seconds(30), minimum: .milliseconds(100))
        statisticsMaxBytes = try settings.int("LEMON_STATISTICS_MAX_BYTES", default: 16 * 1024 * 1024, in: 1024...1_073_741_824)
        statisticsInterval = try settings.duration("LEMON_STATISTICS_INTERVAL", default: .seconds(3600), minimum: .seconds(1))
        statisticsSource = try settings.string("LEMON_STATISTICS_SOURCE", default: "JHU CSSE COVID-19 Data")
        statisticsSourceURL = try settings.string("LEMON_STATISTICS_SOURCE_URL", default: "https://github.com/CSSEGISandData/COVID-19")
        aggregateMinimumCount = try settings.int("LEMON_AGGREGATE_MIN_COUNT", default: 10, in: 1...1_000_000)
        payloadEncryption = try settings.bool("LEMON_PAYLOAD_ENCRYPTION", default: false)
        surveysPerDeviceDay = try settings.int("LEMON_SURVEYS_PER_DEVICE_DAY", default: 3, in: 1...1000)
        appIdHashKeys = []
        guard enabled else { return }
        appIdHashKeys = try SecretHashKey.parseList(try settings.requiredString("LEMON_APPID_HASH_KEYS"), variable: "LEMON_APPID_HASH_KEYS")
        let encryptionPEM = try settings.requiredString("LEMON_ENCRYPTION_KEY")
        let signingPEM = try settings.requiredString("LEMON_SIGNING_KEY")
        let jwtPEM = try settings.requiredString("LEMON_JWT_KEY")
        let rsaReason = "must be an RSA private key (2048 bits or more) in PEM"
        guard let encryption = try? _RSA.Encryption.PrivateKey(pemRepresentation: encryptionPEM) else {
            throw ConfigurationError(variable: "LEMON_ENCRYPTION_KEY", reason: rsaReason)
        }
        guard let signing = try? _RSA.Signing.PrivateKey(pemRepresentation: signingPEM) else {
            throw ConfigurationError(variable: "LEMON_SIGNING_KEY", reason: rsaReason)
        }
        serverKeys = LemonServerKeys(encryption: encryption, signing: signing)
        guard let key = try? ES256PrivateKey(pem: jwtPEM) else {
            throw ConfigurationError(variable: "LEMON_JWT_KEY", reason: "must be a P-256 private key in PEM")
        }
        jwtKey = key
    }
}
