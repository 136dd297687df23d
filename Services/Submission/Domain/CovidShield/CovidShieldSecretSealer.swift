import Crypto
import Foundation

/// Keeps the secret halves of server key pairs encrypted at rest: AES-256-GCM under the operator's key
/// (`COVIDSHIELD_KEY_ENCRYPTION_KEY`), the pair's public key as associated data so that a sealed secret copied to
/// another row does not open.
public struct CovidShieldSecretSealer: Sendable {
    public static let keyBytes = 32

    let key: SymmetricKey

    public init(key: [UInt8]) {
        self.key = SymmetricKey(data: key)
    }

    /// nonce + ciphertext + tag.
    public func seal(_ secret: [UInt8], publicKey: [UInt8]) throws -> [UInt8] {
        guard let combined = try AES.GCM.seal(secret, using: key, authenticating: publicKey).combined else {
            throw CryptoKitError.incorrectParameterSize
        }
        return Array(combined)
    }

    public func open(_ sealed: [UInt8], publicKey: [UInt8]) throws -> [UInt8] {
        Array(try AES.GCM.open(try AES.GCM.SealedBox(combined: sealed), using: key, authenticating: publicKey))
    }
}
