import Foundation

/// What every `POST /api/v1/devices` proves, checked for form (`LemonDeviceRules.credentials`): the AppId, the
/// device's fresh seed, the encrypted pre-master secret and the signed text. Cryptographic checks come after
/// (`LemonDeviceSignature`, `LemonServerKeys`).
public struct LemonDeviceCredentials: Sendable {
    public let appId: String
    /// The request seed as sent (base64), which `plainTextData` must carry.
    public let seedText: String
    public let seed: [UInt8]
    public let encryptedPreMasterSecret: [UInt8]
    public let plainTextData: String
    public let signature: [UInt8]
    /// Lower-case alpha-2, when sent.
    public let language: String?
}
