import _CryptoExtras
import Foundation

/// A device's RSA public key ("der64": base64 of its DER form, 2048 bits or more), which checks the device's
/// RSASSA-PKCS1-v1_5 SHA-256 signatures. PKCS#1 v1.5 is what the app family's RSA key pairs make by default
/// (the seed names no scheme); it is deterministic and has no known weakness for signatures.
public struct LemonDeviceKey: Sendable {
    public let key: _RSA.Signing.PublicKey

    /// Parses the key as sent; anything else than an RSA public key of 2048 bits or more is unauthorized (seed: 401).
    public init(base64 text: String) throws(LemonRejection) {
        guard let der = Data(base64Encoded: text) else { throw .unauthorized("The public key is invalid.") }
        try self.init(der: der)
    }

    /// The key as stored.
    public init(der: Data) throws(LemonRejection) {
        do {
            key = try _RSA.Signing.PublicKey(derRepresentation: der)
        } catch {
            throw .unauthorized("The public key is invalid.")
        }
    }

    public var der: Data { key.derRepresentation }

    /// Whether `signature` signs the UTF-8 of `text` under this key.
    public func verifies(_ signature: [UInt8], over text: String) -> Bool {
        key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: Data(text.utf8), padding: .insecurePKCS1v1_5)
    }
}
