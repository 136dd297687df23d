import Crypto

/// Hashes one-time secrets that people type (teleTANs), which are short enough to try every value offline: stored
/// as HMAC-SHA256 under a key kept outside the database, a copy of the database alone cannot confirm a guess.
///
/// Several keys may be configured: the first hashes new secrets, and every one is still tried on lookup, so a key can
/// be rotated without invalidating live secrets (add the new key first; drop the old one once the longest lifetime
/// of a secret has passed). A row under a key no longer configured is never found.
public struct TypedSecretHasher: Sendable {
    public let keys: [SecretHashKey]
    /// Whether plain SHA-256 rows of before keyed hashes are still looked up (until they expired).
    public let acceptsLegacy: Bool

    public init(keys: [SecretHashKey], acceptsLegacy: Bool = true) {
        precondition(!keys.isEmpty, "at least one key")
        self.keys = keys
        self.acceptsLegacy = acceptsLegacy
    }

    public var currentKeyID: String { keys[0].id }

    /// The stored form of a new secret: under the current key.
    public func hash(_ secret: String) -> KeyedSecretHash {
        Self.hash(secret, under: keys[0])
    }

    /// Every stored form the secret can have now: one per configured key, and the legacy one.
    public func candidates(_ secret: String) -> [KeyedSecretHash] {
        keys.map { Self.hash(secret, under: $0) }
            + (acceptsLegacy ? [KeyedSecretHash(keyID: SecretHashKey.legacyID, hash: SecretHash.sha256Hex(secret))] : [])
    }

    static func hash(_ secret: String, under key: SecretHashKey) -> KeyedSecretHash {
        KeyedSecretHash(keyID: key.id, hash: Array(HMAC<SHA256>.authenticationCode(for: Array(secret.utf8), using: key.key)).hexString)
    }
}
