import ExposureCore
import Foundation
import SubmissionDomain

/// The CovidShield adapter's settings (docs/covidshield.md).
public struct CovidShieldConfiguration: Sendable {
    /// The regions whose keys the retrieval streams carry and whose exposure configuration is served
    /// (`COVIDSHIELD_REGIONS`, default `ON`). A code's region (from verification) becomes its keys' origin.
    public var regions: [String]
    /// The region under whose name the streams also carry the CWA keys of the home country
    /// (`COVIDSHIELD_CWA_KEYS_REGION`; unset: CWA keys stay out of the CovidShield streams).
    public var cwaKeysRegion: String?
    /// AES-256 key (64 hex digits) that seals the secret halves of server key pairs at rest
    /// (`COVIDSHIELD_KEY_ENCRYPTION_KEY`): required to serve, and never generated, since a key kept beside what it
    /// seals protects nothing from someone who has the database (the suite makes a development one in its data
    /// directory).
    public var keyEncryptionKey: [UInt8]?

    /// What `serve` says without `COVIDSHIELD_KEY_ENCRYPTION_KEY`.
    static let keyEncryptionKeyMissing = ConfigurationError(
        variable: "COVIDSHIELD_KEY_ENCRYPTION_KEY",
        reason: "is required (or COVIDSHIELD_KEY_ENCRYPTION_KEY_FILE): 64 hex digits (openssl rand -hex 32) sealing CovidShield key pairs, kept outside the database"
    )
    /// The HMAC key shared with the apps for retrieval (`COVIDSHIELD_RETRIEVE_HMAC_KEY`, hex, at least 32 bytes):
    /// required to serve, as an app can only retrieve with the key built into it.
    public var retrieveHMACKey: [UInt8]?
    /// The ENExposureConfiguration JSON served for every region (`COVIDSHIELD_EXPOSURE_CONFIGURATION_FILE`, read at
    /// start; default the reference's).
    public var exposureConfiguration: String

    /// What `serve` says without `COVIDSHIELD_RETRIEVE_HMAC_KEY`.
    static let retrieveHMACKeyMissing = ConfigurationError(
        variable: "COVIDSHIELD_RETRIEVE_HMAC_KEY",
        reason: "is required (or COVIDSHIELD_RETRIEVE_HMAC_KEY_FILE): the retrieval HMAC key built into the CovidShield apps, at least 32 bytes in hex"
    )

    /// Stops start-up, naming the setting, when a key the family serves with is not configured.
    public func checkKeys() throws(ConfigurationError) {
        guard keyEncryptionKey != nil else { throw Self.keyEncryptionKeyMissing }
        guard retrieveHMACKey != nil else { throw Self.retrieveHMACKeyMissing }
    }

    public init(_ settings: Settings) throws(ConfigurationError) {
        regions = try settings.list("COVIDSHIELD_REGIONS", default: ["ON"])
        if let bad = regions.first(where: { !Self.isRegion($0) }) {
            throw ConfigurationError(variable: "COVIDSHIELD_REGIONS", reason: "must list regions of 1 to 16 letters, digits, '_' or '-', got '\(bad)'")
        }
        cwaKeysRegion = try settings.optionalString("COVIDSHIELD_CWA_KEYS_REGION")
        if let region = cwaKeysRegion, !regions.contains(region) {
            throw ConfigurationError(variable: "COVIDSHIELD_CWA_KEYS_REGION", reason: "must be one of COVIDSHIELD_REGIONS")
        }
        keyEncryptionKey = try settings.hexKey("COVIDSHIELD_KEY_ENCRYPTION_KEY", bytes: SecretSealer.keyBytes...SecretSealer.keyBytes)
        retrieveHMACKey = try settings.hexKey("COVIDSHIELD_RETRIEVE_HMAC_KEY", bytes: 32...1024)
        if let path = try settings.file("COVIDSHIELD_EXPOSURE_CONFIGURATION_FILE", holds: .publicData) {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ConfigurationError(variable: "COVIDSHIELD_EXPOSURE_CONFIGURATION_FILE", reason: "names \(path), which cannot be read")
            }
            guard (try? JSONSerialization.jsonObject(with: Data(text.utf8))) is [String: Any] else {
                throw ConfigurationError(variable: "COVIDSHIELD_EXPOSURE_CONFIGURATION_FILE", reason: "must hold a JSON object")
            }
            exposureConfiguration = text
        } else {
            exposureConfiguration = CovidShieldExposureConfiguration.defaultJSON
        }
    }

    static func isRegion(_ text: String) -> Bool {
        (1...16).contains(text.utf8.count) && text.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-") }
    }
}
