import ExposureRules

/// Keeps the secret halves of server key pairs encrypted at rest: AES-256-GCM under the operator's key
/// (`COVIDSHIELD_KEY_ENCRYPTION_KEY`), the pair's public key as associated data so that a sealed secret copied to
/// another row does not open.
public struct CovidShieldSecretSealer: Sendable {
    public static let keyBytes = SecretSealer.keyBytes

    let sealer: SecretSealer

    public init(key: [UInt8]) {
        sealer = SecretSealer(key: key)
    }

    /// nonce + ciphertext + tag.
    public func seal(_ secret: [UInt8], publicKey: [UInt8]) throws -> [UInt8] {
        try sealer.seal(secret, belongingTo: publicKey)
    }

    public func open(_ sealed: [UInt8], publicKey: [UInt8]) throws -> [UInt8] {
        try sealer.open(sealed, belongingTo: publicKey)
    }
}
