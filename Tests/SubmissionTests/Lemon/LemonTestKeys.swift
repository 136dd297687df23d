import _CryptoExtras
import Foundation
import JWTKit

/// The server's keys for every LEMON test (RSA keys take a moment to make: once per test run).
enum LemonTestKeys {
    // Read only after it is made (swift-crypto's RSA encryption key is not marked Sendable).
    nonisolated(unsafe) static let encryption = try! _RSA.Encryption.PrivateKey(keySize: .bits2048)
    static let signing = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let jwt = ES256PrivateKey()
    static let appIdHashKey = "test:" + Data(repeating: 0x4C, count: 32).base64EncodedString()

    /// The submission service's settings with the family on.
    static var settings: [String: String] {
        [
            "LEMON_ENABLED": "true",
            "LEMON_APPID_HASH_KEYS": appIdHashKey,
            "LEMON_ENCRYPTION_KEY": encryption.pemRepresentation,
            "LEMON_SIGNING_KEY": signing.pemRepresentation,
            "LEMON_JWT_KEY": jwt.pemRepresentation,
        ]
    }
}
