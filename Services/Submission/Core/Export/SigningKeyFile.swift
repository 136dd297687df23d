import Crypto
import ExposureCore
import Foundation

/// An export signing key: a PEM P-256 private key from `SIGNING_KEY_FILE` (or a region's own setting, such as
/// `PROTEGO_SIGNING_KEY_FILE`).
public enum SigningKeyFile {
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
