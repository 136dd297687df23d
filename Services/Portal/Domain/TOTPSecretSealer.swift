import Crypto
import Foundation

/// Keeps officers' TOTP secrets encrypted at rest: AES-256-GCM under the portal's key (`TOTP_ENCRYPTION_KEY`), with
/// the account's name as associated data, so that a sealed secret copied to another account's row does not open. The
/// recovery codes' keyed hashes use a key derived from the same one (HKDF), so that a copy of the database confirms no
/// guessed recovery code either.
public struct TOTPSecretSealer: Sendable {
    public static let keyBytes = 32

    let key: SymmetricKey
    let recoveryKey: SymmetricKey

    public init(key: [UInt8]) {
        precondition(key.count == Self.keyBytes)
        self.key = SymmetricKey(data: key)
        recoveryKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: self.key, info: Array("portal recovery codes".utf8), outputByteCount: 32)
    }

    public struct CannotOpen: Error {}

    /// Base64 of nonce, ciphertext and tag.
    public func seal(_ secret: String, account: String) throws -> String {
        guard let combined = try AES.GCM.seal(Array(secret.utf8), using: key, authenticating: Array(account.utf8)).combined else {
            throw CannotOpen()
        }
        return combined.base64EncodedString()
    }

    public func open(_ sealed: String, account: String) throws -> String {
        guard let combined = Data(base64Encoded: sealed),
              let box = try? AES.GCM.SealedBox(combined: combined),
              let opened = try? AES.GCM.open(box, using: key, authenticating: Array(account.utf8))
        else { throw CannotOpen() }
        return String(decoding: opened, as: UTF8.self)
    }

    /// HMAC-SHA256 of the account and the normalised code, hex.
    public func recoveryCodeHash(_ code: String, account: String) -> String {
        let message = Array(account.utf8) + [0] + Array(code.utf8)
        return HMAC<SHA256>.authenticationCode(for: message, using: recoveryKey).map { String(format: "%02x", $0) }.joined()
    }
}
