import _CryptoExtras
import ExposureRules
import Foundation

/// The server's two RSA keys: one the apps encrypt their pre-master secret for, one that signs the server's answer
/// (its public half built into the app). Two keys, so that a decryption oracle can never produce a signature.
///
/// Pre-master secrets are RSA-OAEP with SHA-256 (and MGF1-SHA-256): PKCS#1 v1.5 encryption is open to padding-oracle
/// attacks (Bleichenbacher), and every refusal here is an answer an attacker could time.
public struct LemonServerKeys: Sendable {
    /// The decryption key's DER form: swift-crypto's RSA encryption key is not `Sendable`, so it is parsed where used.
    let encryptionDER: Data
    public let signing: _RSA.Signing.PrivateKey

    public init(encryption: _RSA.Encryption.PrivateKey, signing: _RSA.Signing.PrivateKey) {
        self.encryptionDER = encryption.derRepresentation
        self.signing = signing
    }

    /// The public half the apps encrypt their pre-master secret for (built into the app, as the signing key's is).
    public var encryptionPublicKey: _RSA.Encryption.PublicKey {
        get throws { try _RSA.Encryption.PrivateKey(derRepresentation: encryptionDER).publicKey }
    }

    /// What seals the devices' session keys at rest, under a key derived from the decryption key.
    public var sessionKeySealer: LemonSessionKeySealer {
        LemonSessionKeySealer(serverKeyDER: encryptionDER)
    }

    /// What seals the devices' push tokens at rest and indexes them for uniqueness.
    public var pushTokenSealer: LemonPushTokenSealer {
        LemonPushTokenSealer(serverKeyDER: encryptionDER)
    }

    /// The keyed digest of a device's survey count per day.
    public func surveyQuota(limit: Int) -> LemonSurveyQuota {
        LemonSurveyQuota(serverKeyDER: encryptionDER, limit: limit)
    }

    /// The 48-byte pre-master secret, or unauthorized (seed: 401) for anything that does not decrypt to one.
    public func preMasterSecret(_ encrypted: [UInt8]) throws(LemonRejection) -> [UInt8] {
        let secret: Data
        do {
            secret = try _RSA.Encryption.PrivateKey(derRepresentation: encryptionDER).decrypt(encrypted, padding: .PKCS1_OAEP_SHA256)
        } catch {
            throw .unauthorized("The pre-master secret is invalid.")
        }
        guard secret.count == LemonDeviceRules.preMasterSecretBytes else { throw .unauthorized("The pre-master secret is invalid.") }
        return Array(secret)
    }

    /// The answer's `Signature`: `<server seed>:<request seed>:<unix seconds>` signed with PKCS#1 v1.5 SHA-256.
    public func sign(serverSeed: String, requestSeed: String, now: Date) throws -> (plainText: String, signed: String) {
        let plain = "\(serverSeed):\(requestSeed):\(now.epochSeconds)"
        let signature = try signing.signature(for: Data(plain.utf8), padding: .insecurePKCS1v1_5)
        return (plain, signature.rawRepresentation.base64EncodedString())
    }
}
