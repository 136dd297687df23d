import Foundation

/// The rules of form of `POST /api/v1/devices` (seed 000): what is 400 (a field malformed) and what is 401 (a
/// credential that cannot be right). Cryptographic checks are separate, so that they run only on well-formed input.
public struct LemonDeviceRules: Sendable {
    /// Bytes of the device's and the server's seed.
    public static let seedBytes = 32
    /// Bytes of the decrypted pre-master secret (TLS-like).
    public static let preMasterSecretBytes = 48
    /// How far `plainTextData`'s time may be from the server's: the window in which a captured request could be
    /// replayed, were every seed accepted within it not also refused a second time (`LemonDeviceStore`).
    public static let signatureWindow: TimeInterval = 300
    /// Push tokens: 5 to 500 characters (seed).
    public static let pushTokenLength = 5...500
    /// The AppId is a random instance id: printable ASCII, up to 200 characters.
    public static let appIdLength = 1...200

    public let catalog: LemonCatalog

    public init(catalog: LemonCatalog) {
        self.catalog = catalog
    }

    /// The operating systems of the seed.
    public enum OperatingSystem: String, Sendable {
        case ios = "IOS"
        case android = "Android"
    }

    /// The fields every request carries, checked for form.
    public func credentials(_ request: LemonDeviceRequest) throws(LemonRejection) -> LemonDeviceCredentials {
        guard let appId = request.appId, Self.appIdLength.contains(appId.count),
              appId.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F })
        else { throw .invalid("The AppId is missing or invalid.") }
        guard let seedText = request.seed, let seed = Data(base64Encoded: seedText), seed.count == Self.seedBytes else {
            throw .invalid("The seed must be base64 of \(Self.seedBytes) bytes.")
        }
        var language: String?
        if let sent = request.language {
            guard catalog.language(sent) != nil else { throw .invalid("The language must be the alpha-2 code of a supported language.") }
            language = sent.lowercased()
        }
        guard request.hasSignature else { throw .invalid("The signature is missing.") }
        guard let plain = request.plainTextData, let signedText = request.signedData,
              let signature = Data(base64Encoded: signedText), !signature.isEmpty
        else { throw .unauthorized("The signature is invalid.") }
        guard let secretText = request.preMasterSecret, let secret = Data(base64Encoded: secretText), !secret.isEmpty else {
            throw .unauthorized("The pre-master secret is invalid.")
        }
        return LemonDeviceCredentials(
            appId: appId, seedText: seedText, seed: Array(seed), encryptedPreMasterSecret: Array(secret), plainTextData: plain,
            signature: Array(signature), language: language
        )
    }

    /// The fields only a registration carries.
    public func operatingSystem(_ request: LemonDeviceRequest) throws(LemonRejection) -> OperatingSystem {
        guard let sent = request.operatingSystem,
              let system = [OperatingSystem.ios, .android].first(where: { $0.rawValue.caseInsensitiveCompare(sent) == .orderedSame })
        else { throw .invalid("The operating system must be IOS or Android.") }
        return system
    }

    /// A push token, when one is sent: 5 to 500 characters, none of them control characters.
    public static func pushToken(_ token: String?) throws(LemonRejection) -> String? {
        guard let token else { return nil }
        guard pushTokenLength.contains(token.count), !token.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalid("The push token must be \(pushTokenLength.lowerBound) to \(pushTokenLength.upperBound) characters.")
        }
        return token
    }

    /// An authentication must not carry what only a registration may (seed: 401).
    public static func checkAuthenticationFields(_ request: LemonDeviceRequest) throws(LemonRejection) {
        if request.publicKey != nil || request.operatingSystem != nil || request.pushToken != nil {
            throw .unauthorized("An authentication must not carry a public key, an operating system or a push token.")
        }
    }

    /// `plainTextData` is `<request seed>:<unix seconds>`: it binds the signature to this request's seed and to a time
    /// near the server's, so that an old signed text cannot open a new session. Returns the signed time.
    @discardableResult
    public static func checkSignedText(_ credentials: LemonDeviceCredentials, now: Date) throws(LemonRejection) -> Int64 {
        let parts = credentials.plainTextData.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == credentials.seedText, let seconds = Int64(parts[1]),
              abs(TimeInterval(seconds) - now.timeIntervalSince1970) <= signatureWindow
        else { throw .unauthorized("The signed text must be the request's seed and the current time.") }
        return seconds
    }
}
