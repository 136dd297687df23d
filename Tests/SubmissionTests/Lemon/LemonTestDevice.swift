import _CryptoExtras
import Foundation

/// A phone of the LEMON app: its AppId and RSA key pair, and the bodies it sends to `POST /api/v1/devices`.
struct LemonTestDevice: Sendable {
    let appId: String
    let key: _RSA.Signing.PrivateKey

    init(appId: String = UUID().uuidString) {
        self.appId = appId
        self.key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    }

    static func seed() -> String {
        Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    }

    /// 48 random bytes encrypted for the server's key with RSA-OAEP SHA-256.
    static func preMasterSecret(bytes: Int = 48, secret given: Data? = nil) -> String {
        let secret = given ?? Data((0..<bytes).map { _ in UInt8.random(in: 0...255) })
        return try! LemonTestKeys.encryption.publicKey.encrypt(secret, padding: .PKCS1_OAEP_SHA256).base64EncodedString()
    }

    /// `{"plainTextData": "<seed>:<seconds>", "signedData": …}` under `signer` (this device's key by default).
    func signature(seed: String, now: Date, signer: _RSA.Signing.PrivateKey? = nil, key name: String = "signature") -> [String: Any] {
        let plain = "\(seed):\(Int64(now.timeIntervalSince1970))"
        let signed = try! (signer ?? key).signature(for: Data(plain.utf8), padding: .insecurePKCS1v1_5)
        return ["plainTextData": plain, "signedData": signed.rawRepresentation.base64EncodedString()]
    }

    /// The registration as the seed spells it (`AppId`, `Signature`).
    func registration(now: Date, seed: String = LemonTestDevice.seed(), pushToken: String? = nil, secret: Data? = nil) -> [String: Any] {
        var body: [String: Any] = [
            "AppId": appId,
            "publicKey": key.publicKey.derRepresentation.base64EncodedString(),
            "operatingSystem": "Android",
            "language": "en",
            "seed": seed,
            "preMasterSecret": Self.preMasterSecret(secret: secret),
            "Signature": signature(seed: seed, now: now),
        ]
        if let pushToken { body["pushToken"] = pushToken }
        return body
    }

    /// The authentication as the seed spells it (`appId`, `signature`).
    func authentication(now: Date, seed: String = LemonTestDevice.seed(), signer: _RSA.Signing.PrivateKey? = nil) -> [String: Any] {
        [
            "appId": appId,
            "language": "de",
            "seed": seed,
            "preMasterSecret": Self.preMasterSecret(),
            "signature": signature(seed: seed, now: now, signer: signer),
        ]
    }
}
