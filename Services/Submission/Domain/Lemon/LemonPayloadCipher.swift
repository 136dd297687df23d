import Crypto
import _CryptoExtras
import ExposureRules
import Foundation

/// The seed's optional payload encryption: every body is base64 of `IV (16 random bytes) || ciphertext || MAC (32
/// bytes over IV || ciphertext)`. The seed names neither cipher, MAC nor key derivation; the sizes fit AES-256-CBC
/// (PKCS#7 padding) with HMAC-SHA256, encrypt-then-MAC, the keys derived by HKDF-SHA256 from the 48-byte pre-master
/// secret with both 32-byte seeds as salt (`client seed || server seed`), info `lemon-aes` and `lemon-mac`. The MAC is
/// checked, in constant time, before anything is decrypted, so no padding error is ever an oracle.
///
/// A request's MAC is bound to what the request does: it is still HMAC-SHA256 over `IV || ciphertext`, as the seed
/// says, but under a key of that request alone, `HMAC-SHA256(MAC key, "lemon-request" 0x00 METHOD 0x00 target)`, the
/// target being the path and query as sent (`/api/v1/devices/active?status=false`). A sealed body moved onto another
/// method, path or query does not open there, and a request without keys cannot be made at all: with payload
/// encryption on, every request but a GET carries a sealed body, an empty plaintext when the operation has none
/// (`LemonEnvelopeMiddleware`). Answers keep the session's MAC key.
public struct LemonPayloadCipher: Sendable {
    public static let ivBytes = 16
    public static let macBytes = 32
    /// Bytes of a session's key material: the AES key, then the MAC key.
    public static let materialBytes = 64

    let encryptionKey: SymmetricKey
    let macKey: SymmetricKey

    /// The 64 bytes of key material a device's session keeps (AES key, then MAC key).
    public let material: [UInt8]

    public init(preMasterSecret: [UInt8], clientSeed: [UInt8], serverSeed: [UInt8]) {
        let salt = clientSeed + serverSeed
        let secret = SymmetricKey(data: preMasterSecret)
        let aes = HKDF<SHA256>.deriveKey(inputKeyMaterial: secret, salt: salt, info: Array("lemon-aes".utf8), outputByteCount: 32)
        let mac = HKDF<SHA256>.deriveKey(inputKeyMaterial: secret, salt: salt, info: Array("lemon-mac".utf8), outputByteCount: 32)
        self.init(material: aes.withUnsafeBytes { Array($0) } + mac.withUnsafeBytes { Array($0) })
    }

    /// The cipher of a stored session.
    public init(material: [UInt8]) {
        precondition(material.count == Self.materialBytes)
        self.material = material
        encryptionKey = SymmetricKey(data: material.prefix(32))
        macKey = SymmetricKey(data: material.suffix(32))
    }

    /// base64 of `IV || ciphertext || MAC`, with a fresh IV from `random`: an answer.
    public func seal(_ plaintext: [UInt8], random: any RandomSource) throws -> String {
        try Self.seal(plaintext, encryptionKey: encryptionKey, macKey: macKey, random: random)
    }

    /// A request's sealed body, its MAC bound to `method` and `target` (what the app sends).
    public func sealRequest(_ plaintext: [UInt8], method: String, target: String, random: any RandomSource) throws -> String {
        try Self.seal(plaintext, encryptionKey: encryptionKey, macKey: requestMACKey(method: method, target: target), random: random)
    }

    /// The plaintext of a request's sealed body sent as `method` to `target`; invalid when it is not base64, too
    /// short, or its MAC does not match under that request's key.
    public func openRequest(_ text: String, method: String, target: String) throws(LemonRejection) -> [UInt8] {
        try open(text, macKey: requestMACKey(method: method, target: target))
    }

    /// The plaintext of an answer's sealed body (the app's side).
    public func open(_ text: String) throws(LemonRejection) -> [UInt8] {
        try open(text, macKey: macKey)
    }

    /// The MAC key of one request: the session's MAC key applied to its method (upper case) and target.
    func requestMACKey(method: String, target: String) -> SymmetricKey {
        let line = Array("lemon-request".utf8) + [0] + Array(method.uppercased().utf8) + [0] + Array(target.utf8)
        return SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: line, using: macKey)))
    }

    static func seal(_ plaintext: [UInt8], encryptionKey: SymmetricKey, macKey: SymmetricKey, random: any RandomSource) throws -> String {
        let iv = random.bytes(count: ivBytes)
        let ciphertext = try AES._CBC.encrypt(plaintext, using: encryptionKey, iv: try AES._CBC.IV(ivBytes: iv))
        let body = iv + Array(ciphertext)
        let mac = HMAC<SHA256>.authenticationCode(for: body, using: macKey)
        return Data(body + Array(mac)).base64EncodedString()
    }

    func open(_ text: String, macKey: SymmetricKey) throws(LemonRejection) -> [UInt8] {
        let rejected = LemonRejection.invalid("The encrypted body is invalid.")
        guard let bytes = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)).map(Array.init),
              bytes.count >= Self.ivBytes + 16 + Self.macBytes
        else { throw rejected }
        let body = Array(bytes.dropLast(Self.macBytes))
        let mac = Array(bytes.suffix(Self.macBytes))
        guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: body, using: macKey) else { throw rejected }
        do {
            let iv = try AES._CBC.IV(ivBytes: body.prefix(Self.ivBytes))
            return Array(try AES._CBC.decrypt(body.dropFirst(Self.ivBytes), using: encryptionKey, iv: iv))
        } catch {
            throw rejected
        }
    }
}
