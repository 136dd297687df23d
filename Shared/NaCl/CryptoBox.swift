import CSodium
import ExposureRules

/// NaCl's `crypto_box` (X25519 key agreement, XSalsa20-Poly1305) from libsodium: what CovidShield apps seal their
/// uploads with. Never written by hand here: every operation is libsodium's.
public enum CryptoBox {
    public static let publicKeyBytes = Int(crypto_box_PUBLICKEYBYTES)
    public static let secretKeyBytes = Int(crypto_box_SECRETKEYBYTES)
    public static let nonceBytes = Int(crypto_box_NONCEBYTES)
    /// The authentication tag each sealed message carries before its ciphertext.
    public static let tagBytes = Int(crypto_box_MACBYTES)

    /// A key pair: the public half is what the other side seals to, the secret half never leaves its owner.
    public struct KeyPair: Sendable, Equatable {
        public let publicKey: [UInt8]
        public let secretKey: [UInt8]
    }

    public enum Failure: Error, Equatable {
        /// A key or nonce of the wrong length: `what` says which.
        case wrongLength(String)
        /// libsodium refused (it cannot start, or a public key is of low order).
        case refused
    }

    /// A fresh key pair whose secret half comes from `random` (the CSPRNG in service, a seeded source in tests).
    public static func keyPair(using random: any RandomSource) throws -> KeyPair {
        try keyPair(secretKey: random.bytes(count: secretKeyBytes))
    }

    /// The key pair of a secret key: its public half is the X25519 base-point multiple.
    public static func keyPair(secretKey: [UInt8]) throws -> KeyPair {
        try ready()
        guard secretKey.count == secretKeyBytes else { throw Failure.wrongLength("secret key") }
        var publicKey = [UInt8](repeating: 0, count: publicKeyBytes)
        guard crypto_scalarmult_base(&publicKey, secretKey) == 0 else { throw Failure.refused }
        return KeyPair(publicKey: publicKey, secretKey: secretKey)
    }

    /// Seals `message` from the holder of `secretKey` to the holder of `publicKey`: tag, then ciphertext. A nonce must
    /// never be used twice with the same pair of keys.
    public static func seal(_ message: [UInt8], nonce: [UInt8], to publicKey: [UInt8], from secretKey: [UInt8]) throws -> [UInt8] {
        try ready()
        try check(nonce: nonce, publicKey: publicKey, secretKey: secretKey)
        var sealed = [UInt8](repeating: 0, count: message.count + tagBytes)
        guard crypto_box_easy(&sealed, message, UInt64(message.count), nonce, publicKey, secretKey) == 0 else { throw Failure.refused }
        return sealed
    }

    /// Opens what the holder of `publicKey` sealed to the holder of `secretKey`; nil when the tag does not verify
    /// (tampered, sealed to another key, another nonce) or the message is shorter than a tag.
    public static func open(_ sealed: [UInt8], nonce: [UInt8], from publicKey: [UInt8], to secretKey: [UInt8]) throws -> [UInt8]? {
        try ready()
        try check(nonce: nonce, publicKey: publicKey, secretKey: secretKey)
        guard sealed.count >= tagBytes else { return nil }
        var message = [UInt8](repeating: 0, count: sealed.count - tagBytes)
        guard crypto_box_open_easy(&message, sealed, UInt64(sealed.count), nonce, publicKey, secretKey) == 0 else { return nil }
        return message
    }

    private static func check(nonce: [UInt8], publicKey: [UInt8], secretKey: [UInt8]) throws {
        guard nonce.count == nonceBytes else { throw Failure.wrongLength("nonce") }
        guard publicKey.count == publicKeyBytes else { throw Failure.wrongLength("public key") }
        guard secretKey.count == secretKeyBytes else { throw Failure.wrongLength("secret key") }
    }

    /// libsodium must be initialised once before use; `sodium_init` is safe to call from several threads.
    private static let initialised: Bool = sodium_init() >= 0

    private static func ready() throws {
        guard initialised else { throw Failure.refused }
    }
}
