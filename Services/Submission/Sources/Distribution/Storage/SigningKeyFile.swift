import Crypto
import ExposureCore
import Foundation
import Logging

/// An export signing key: a PEM P-256 private key from `SIGNING_KEY_FILE` (or a region's own setting, such as
/// `PROTEGO_SIGNING_KEY_FILE`), or, when none is configured, a development key generated on first start beside the
/// data (and reused after), whose public key is logged.
public enum SigningKeyFile {
    public static func load(
        configured: String?, developmentPath: String, variable: String = "SIGNING_KEY_FILE", logger: Logger
    ) throws -> P256.Signing.PrivateKey {
        if let configured {
            return try read(configured, variable: variable)
        }
        if let pem = try? String(contentsOfFile: developmentPath, encoding: .utf8), let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            return key
        }
        let key = P256.Signing.PrivateKey()
        let url = URL(fileURLWithPath: developmentPath)
        try PrivateFiles.createFolder(url.deletingLastPathComponent().path)
        guard FileManager.default.createFile(atPath: developmentPath, contents: Data(key.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: developmentPath])
        }
        logger.warning(
            "no \(variable): generated a development export signing key; phones must be given its public key",
            metadata: ["file": "\(developmentPath)", "publicKey": "\(key.publicKey.pemRepresentation.replacingOccurrences(of: "\n", with: " "))"]
        )
        return key
    }

    /// The operator's key file named by `variable`: a clear start-up error when it cannot be read or is not a PEM
    /// P-256 private key (another curve, an RSA key, a public key).
    public static func read(_ path: String, variable: String) throws(ConfigurationError) -> P256.Signing.PrivateKey {
        guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ConfigurationError(variable: variable, reason: "names \(path), which cannot be read")
        }
        guard let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) else {
            throw ConfigurationError(variable: variable, reason: "names \(path), which is not a PEM P-256 private key")
        }
        return key
    }
}
