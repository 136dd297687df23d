import Crypto
import ExposureProtocol
import Foundation

/// Signs export files: ECDSA P-256 over SHA-256 of the whole `export.bin`, DER-encoded, as the Exposure
/// Notification framework verifies it with the public key the health authority registered with Apple and Google.
public struct ExportSigner: Sendable {
    public let privateKey: P256.Signing.PrivateKey
    public let signatureInfo: SignatureInfo

    public init(privateKey: P256.Signing.PrivateKey, signatureInfo: SignatureInfo) {
        self.privateKey = privateKey
        self.signatureInfo = signatureInfo
    }

    public func signature(for exportBinary: [UInt8]) throws -> [UInt8] {
        Array(try privateKey.signature(for: exportBinary).derRepresentation)
    }

    /// The public key in PEM, for the apps (and for the log of a development key).
    public var publicKeyPEM: String { privateKey.publicKey.pemRepresentation }

    /// `SignatureInfo` as the contract describes it: bundle id, key version `v1`, key id = the country's mobile
    /// country code, algorithm ECDSA-with-SHA256.
    public static func signatureInfo(appBundleID: String, keyVersion: String, keyID: String) -> SignatureInfo {
        var info = SignatureInfo()
        info.appBundleID = appBundleID
        info.verificationKeyVersion = keyVersion
        info.verificationKeyID = keyID
        info.signatureAlgorithm = "1.2.840.10045.4.3.2"
        return info
    }
}
