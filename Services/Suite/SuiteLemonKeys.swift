import _CryptoExtras
import Crypto
import ExposureCore
import Foundation

/// The LEMON family's keys for the suite: made on first start and kept in the data directory (mode 0600), as the
/// suite's teleTAN hash key and development export signing key are, so that the family runs with no setup. Only the
/// suite makes them: the submission service itself refuses to start LEMON without configured keys
/// (`LemonConfiguration`), and an operator's `SUBMISSION_LEMON_*` variables still win over these files.
enum SuiteLemonKeys {
    /// The submission settings that turn the family on with the files (made when missing) under `layout`.
    static func settings(layout: SuiteLayout, random: any RandomSource) throws -> [String: String] {
        let appIdKeys = layout.path("lemon-appid-hash-keys")
        try SecretHashKey.createKeyFileIfMissing(at: appIdKeys, id: "suite", random: random)
        let encryption = layout.path("lemon-encryption-key.pem")
        let signing = layout.path("lemon-signing-key.pem")
        let jwt = layout.path("lemon-jwt-key.pem")
        try PrivateFiles.createIfMissing(encryption) { try _RSA.Encryption.PrivateKey(keySize: .bits2048).pemRepresentation }
        try PrivateFiles.createIfMissing(signing) { try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation }
        try PrivateFiles.createIfMissing(jwt) { P256.Signing.PrivateKey().pemRepresentation }
        return [
            "LEMON_ENABLED": "true",
            "LEMON_APPID_HASH_KEYS_FILE": appIdKeys,
            "LEMON_ENCRYPTION_KEY_FILE": encryption,
            "LEMON_SIGNING_KEY_FILE": signing,
            "LEMON_JWT_KEY_FILE": jwt,
        ]
    }
}
