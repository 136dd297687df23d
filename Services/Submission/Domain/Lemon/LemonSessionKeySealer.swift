import Crypto
import ExposureRules
import Foundation

/// Keeps a device's payload session keys sealed in its row: AES-256-GCM (`SecretSealer`, as CovidShield's key pairs
/// are sealed) under a key derived by HKDF-SHA256 from `LEMON_ENCRYPTION_KEY` (info
/// `lemon-session-key-wrap`), so that a copy of the database alone opens no session, and the device's id as associated
/// data, so that sealed keys copied onto another device's row do not open there.
public struct LemonSessionKeySealer: Sendable {
    static let info = Array("lemon-session-key-wrap".utf8)

    let sealer: SecretSealer

    /// - Parameter serverKeyDER: the DER form of the server's RSA decryption key, the secret the wrapping key comes from.
    public init(serverKeyDER: Data) {
        let key = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: serverKeyDER), info: Self.info, outputByteCount: 32)
        sealer = SecretSealer(key: key.withUnsafeBytes { Array($0) })
    }

    /// nonce + ciphertext + tag, bound to `deviceID`.
    public func seal(_ keys: [UInt8], deviceID: String) throws -> [UInt8] {
        try sealer.seal(keys, belongingTo: Array(deviceID.utf8))
    }

    /// The keys, or nil when the sealed bytes were not sealed for this device under this key (or are damaged).
    public func open(_ sealed: [UInt8], deviceID: String) -> [UInt8]? {
        guard let keys = try? sealer.open(sealed, belongingTo: Array(deviceID.utf8)), keys.count == LemonPayloadCipher.materialBytes else { return nil }
        return keys
    }
}
