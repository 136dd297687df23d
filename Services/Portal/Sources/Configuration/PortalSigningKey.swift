import ExposureCore
import Foundation
import JWTKit

/// The P-256 key pair the portal signs local officers' tokens with: the operator's PEM private key
/// (`PORTAL_SIGNING_KEY_FILE`, required to serve; the all-in-one suite makes a development one). Its public key goes
/// to verification's `JWT_PUBLIC_KEY_FILES`; `portal-service signing-key` prints it.
public struct PortalSigningKey: Sendable {
    public let privateKey: ES256PrivateKey
    public var publicKeyPEM: String { privateKey.publicKey.pemRepresentation }

    /// What `serve` says without `PORTAL_SIGNING_KEY_FILE`.
    static let missing = ConfigurationError(
        variable: "PORTAL_SIGNING_KEY_FILE",
        reason: "is required: a PEM P-256 private key signing officers' tokens (openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt); verification trusts its public key"
    )

    /// The configured key file.
    public static func load(_ configuration: PortalConfiguration) throws(ConfigurationError) -> PortalSigningKey {
        guard let file = configuration.signingKeyFile else { throw missing }
        return try read(file)
    }

    /// The PEM P-256 private key in `file`.
    public static func read(_ file: String) throws(ConfigurationError) -> PortalSigningKey {
        guard let pem = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw ConfigurationError(variable: "PORTAL_SIGNING_KEY_FILE", reason: "names \(file), which cannot be read")
        }
        guard let key = try? ES256PrivateKey(pem: pem) else {
            throw ConfigurationError(variable: "PORTAL_SIGNING_KEY_FILE", reason: "names \(file), which is not a PEM P-256 private key")
        }
        return PortalSigningKey(privateKey: key)
    }
}
