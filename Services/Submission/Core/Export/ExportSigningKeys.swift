import Crypto
import ExposureCore
import ExposureProtocol
import SubmissionDomain

/// The settings of one output's signing keys (the CWA tree's, `SIGNING_*`/`SIGNATURE_*`, or a region's, such as
/// `PROTEGO_*`): the primary key with its `SignatureInfo`, and the additional keys that sign beside it.
public struct ExportSigningKeys: Sendable {
    /// The primary key's setting (`SIGNING_KEY_FILE`) and file (required to sign; never generated: the all-in-one
    /// suite makes a development one).
    public var variable: String
    public var keyFile: String?
    public var appBundleID: String
    public var keyID: String
    public var keyVersion: String
    /// The setting of the additional keys (`SIGNING_ADDITIONAL_KEY_FILES`) and its entries.
    public var additionalVariable: String
    public var additional: [AdditionalSigningKey]

    /// Reads `<prefix>SIGNING_KEY_FILE`, `<prefix>SIGNATURE_APP_BUNDLE_ID`, `<prefix>SIGNATURE_KEY_ID`,
    /// `<prefix>SIGNATURE_KEY_VERSION` (default `v1`) and `<prefix>SIGNING_ADDITIONAL_KEY_FILES` (default none).
    public init(
        _ settings: Settings, prefix: String = "", defaultAppBundleID: String, defaultKeyID: String
    ) throws(ConfigurationError) {
        variable = prefix + "SIGNING_KEY_FILE"
        keyFile = try settings.file(variable, holds: .secret)
        appBundleID = try settings.string(prefix + "SIGNATURE_APP_BUNDLE_ID", default: defaultAppBundleID)
        keyVersion = try settings.string(prefix + "SIGNATURE_KEY_VERSION", default: "v1")
        keyID = try settings.string(prefix + "SIGNATURE_KEY_ID", default: defaultKeyID)
        additionalVariable = prefix + "SIGNING_ADDITIONAL_KEY_FILES"
        additional = try AdditionalSigningKey.list(settings, variable: additionalVariable, primaryKeyID: keyID, primaryKeyVersion: keyVersion)
    }

    /// Stops start-up, naming the setting, when no primary key is configured.
    public func checkConfigured() throws(ConfigurationError) {
        guard keyFile == nil else { return }
        throw missing
    }

    /// The primary key.
    public func primaryKey() throws(ConfigurationError) -> P256.Signing.PrivateKey {
        guard let keyFile else { throw missing }
        return try SigningKeyFile.read(keyFile, variable: variable)
    }

    private var missing: ConfigurationError {
        ConfigurationError(
            variable: variable,
            reason: "is required: the PEM P-256 private key that signs the export files (openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt); the apps verify with its public key"
        )
    }

    /// Every key, read at start-up: a file that cannot be read, is not a P-256 private key, or holds a key already
    /// in the set stops start-up with the setting's name.
    public func load() throws -> ExportSignerSet {
        let primary = try primaryKey()
        var seen = [primary.publicKey.x963Representation]
        var signers: [ExportSigner] = []
        for (index, entry) in additional.enumerated() {
            let key = try SigningKeyFile.read(entry.file, variable: additionalVariable)
            if let earlier = seen.firstIndex(of: key.publicKey.x963Representation) {
                throw ConfigurationError(
                    variable: additionalVariable,
                    reason: "entry \(index + 1) names \(entry.file), the same key as \(earlier == 0 ? variable : "entry \(earlier)"): each version needs a key of its own"
                )
            }
            seen.append(key.publicKey.x963Representation)
            signers.append(ExportSigner(privateKey: key, signatureInfo: info(keyVersion: entry.keyVersion, keyID: entry.keyID)))
        }
        return ExportSignerSet(ExportSigner(privateKey: primary, signatureInfo: info(keyVersion: keyVersion, keyID: keyID)), additional: signers)
    }

    func info(keyVersion: String, keyID: String) -> SignatureInfo {
        ExportSigner.signatureInfo(appBundleID: appBundleID, keyVersion: keyVersion, keyID: keyID)
    }
}
