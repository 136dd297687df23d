import Crypto
import ExposureRules
import Foundation

/// What an `Idempotency-Key` on a teleTAN request (openapi/verification.yaml) becomes in storage: the hash its row
/// is found by, and the key that seals the teleTAN so that a repeat of the request can be answered with it.
///
/// The database keeps teleTANs as hashes only, so a repeat could not be answered from them. The request's own key
/// unlocks the teleTAN instead: it is sealed (AES-GCM) under a key derived from the idempotency key, and only a
/// differently derived hash of the idempotency key is stored. Whoever reads the database holds neither the
/// idempotency key nor a way to test guesses of 128 random bits, so a sealed teleTAN is as unreadable as its hash.
public struct TeleTANRequestKey: Sendable {
    /// Lower-case hex; the row's `request_key_hash`.
    public let lookupHash: String
    private let sealingKey: SymmetricKey

    /// `idempotencyKey` must pass `Codes.isIdempotencyKey`.
    public init(idempotencyKey: String) {
        let material = SymmetricKey(data: Array(idempotencyKey.utf8))
        // Two outputs of one key under different labels: knowing the lookup hash tells nothing of the sealing key.
        lookupHash = HKDF<SHA256>.deriveKey(inputKeyMaterial: material, info: Array("teletan request lookup".utf8), outputByteCount: 32)
            .withUnsafeBytes { $0.hexString }
        sealingKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: material, info: Array("teletan request seal".utf8), outputByteCount: 32)
    }

    /// The teleTAN sealed for storage: lower-case hex of nonce, ciphertext and tag.
    public func seal(_ teleTAN: String, using random: any RandomSource) throws -> String {
        let nonce = try AES.GCM.Nonce(data: random.bytes(count: 12))
        let box = try AES.GCM.seal(Array(teleTAN.utf8), using: sealingKey, nonce: nonce)
        guard let combined = box.combined else { throw SealingError.noCombinedForm }
        return combined.hexString
    }

    /// The teleTAN in `sealed`, or nil when it was not sealed under this key (or is damaged).
    public func open(_ sealed: String) -> String? {
        guard let bytes = [UInt8](hex: sealed),
              let box = try? AES.GCM.SealedBox(combined: bytes),
              let plain = try? AES.GCM.open(box, using: sealingKey)
        else { return nil }
        return String(decoding: plain, as: UTF8.self)
    }

    public enum SealingError: Error {
        /// Only with a nonce of another size than 12 bytes, which `seal` never makes.
        case noCombinedForm
    }
}
