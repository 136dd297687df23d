import Crypto
import Foundation

/// Keeps a secret encrypted at rest under an operator's key that lives outside the database (a `*_ENCRYPTION_KEY`
/// setting): AES-256-GCM, with what the secret belongs to (a row's key) as associated data, so that a sealed secret
/// copied to another row does not open there. A copy of the database alone opens nothing.
public struct SecretSealer: Sendable {
    public static let keyBytes = 32

    private let key: SymmetricKey

    public init(key: [UInt8]) {
        precondition(key.count == Self.keyBytes, "an AES-256 key has 32 bytes")
        self.key = SymmetricKey(data: key)
    }

    /// The secret sealed for storage: nonce, ciphertext and tag.
    public func seal(_ secret: [UInt8], belongingTo owner: [UInt8]) throws -> [UInt8] {
        guard let combined = try AES.GCM.seal(secret, using: key, authenticating: owner).combined else {
            throw CryptoKitError.incorrectParameterSize
        }
        return Array(combined)
    }

    /// The secret, or a thrown error when `sealed` was sealed under another key, for another owner, or is damaged.
    public func open(_ sealed: [UInt8], belongingTo owner: [UInt8]) throws -> [UInt8] {
        Array(try AES.GCM.open(try AES.GCM.SealedBox(combined: sealed), using: key, authenticating: owner))
    }
}
