import Crypto
import ExposureRules
import Foundation

/// Keeps a device's push token out of the database in the clear, as `LemonSessionKeySealer` does its session keys:
/// sealed with AES-256-GCM under a key derived by HKDF-SHA256 from `LEMON_ENCRYPTION_KEY` (info
/// `lemon-push-token-wrap`), bound to the device's id. Tokens must be unique (seed), and a sealed value is different
/// every time, so each is also kept as an HMAC-SHA256 under another derived key (info `lemon-push-token-index`): the
/// unique index, which finds the device holding a token without opening any.
public struct LemonPushTokenSealer: Sendable {
    static let wrapInfo = Array("lemon-push-token-wrap".utf8)
    static let indexInfo = Array("lemon-push-token-index".utf8)

    let sealer: SecretSealer
    let indexKey: SymmetricKey

    /// - Parameter serverKeyDER: the DER form of the server's RSA decryption key, the secret both keys come from.
    public init(serverKeyDER: Data) {
        let secret = SymmetricKey(data: serverKeyDER)
        let wrap = HKDF<SHA256>.deriveKey(inputKeyMaterial: secret, info: Self.wrapInfo, outputByteCount: 32)
        sealer = SecretSealer(key: wrap.withUnsafeBytes { Array($0) })
        indexKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: secret, info: Self.indexInfo, outputByteCount: 32)
    }

    /// nonce + ciphertext + tag, bound to `deviceID`.
    public func seal(_ token: String, deviceID: String) throws -> [UInt8] {
        try sealer.seal(Array(token.utf8), belongingTo: Array(deviceID.utf8))
    }

    /// The token, or nil when the sealed bytes were not sealed for this device under this key (or are damaged).
    public func open(_ sealed: [UInt8], deviceID: String) -> String? {
        guard let bytes = try? sealer.open(sealed, belongingTo: Array(deviceID.utf8)) else { return nil }
        return String(bytes: bytes, encoding: .utf8)
    }

    /// The token's index: hex of its HMAC, the same for the same token.
    public func index(_ token: String) -> String {
        Array(HMAC<SHA256>.authenticationCode(for: Array(token.utf8), using: indexKey)).hexString
    }
}
