import ExposureNaCl
import ExposureProtocol
import Foundation

/// An `EncryptedUploadRequest` past the checks that come before its key pair is looked up (covidshield.md, "POST
/// /upload"), and the checks after it, up to the keys to store.
public struct CovidShieldSealedUpload: Sendable {
    /// EncryptedUploadRequest bodies larger than this are refused unread.
    public static let maxBytes = 1024
    static let keyBytes = 32
    static let nonceBytes = 24

    public let serverPublicKey: [UInt8]
    /// The app key the upload is sealed under, as sent (its length is checked after the pair is looked up).
    public var appPublicKey: [UInt8] { Array(request.appPublicKey) }
    let request: Covidshield_EncryptedUploadRequest

    /// Parses a body (`tooLarge` when more than `maxBytes` were sent) and checks the server key's length: what the
    /// sheet checks before it looks for the key pair.
    public static func parse(_ bytes: [UInt8], tooLarge: Bool = false) throws(CovidShieldUploadRejection) -> Self {
        guard !tooLarge, bytes.count <= maxBytes,
              let request = try? Covidshield_EncryptedUploadRequest(serializedBytes: bytes)
        else { throw .unreadable }
        guard request.serverPublicKey.count == keyBytes else { throw .cryptoParameters }
        return Self(serverPublicKey: Array(request.serverPublicKey), request: request)
    }

    /// Opens the upload with the key pair's secret half and applies the rules, in the sheet's order; returns the keys
    /// of the upload, each stored as a key of `region` (one bad key rejects all).
    public func open(secretKey: [UInt8], rules: CovidShieldKeyRules, region: String, now: Date) throws(CovidShieldUploadRejection) -> [DiagnosisKey] {
        guard request.nonce.count == Self.nonceBytes, request.appPublicKey.count == Self.keyBytes else { throw .cryptoParameters }
        let opened: [UInt8]?
        do {
            opened = try CryptoBox.open(Array(request.payload), nonce: Array(request.nonce), from: Array(request.appPublicKey), to: secretKey)
        } catch {
            // The lengths were checked above: only a low-order app key (libsodium refuses it) lands here.
            throw .decryptionFailed
        }
        guard let opened else { throw .decryptionFailed }
        guard let upload = try? Covidshield_Upload(serializedBytes: opened) else { throw .invalidPayload }
        return try rules.keys(of: upload, region: region, now: now)
    }
}
