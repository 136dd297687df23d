import Crypto
import ExposureCore
import Foundation

/// The keys a stack gives its services: made in its data directory when missing (mode 0600, never printed) and
/// named to the services by their `*_FILE` settings. The services themselves never make a key: each refuses to
/// start without its configured ones, so that no production secret is ever generated silently. Only a stack (the
/// all-in-one suite, the tests) makes these development keys; its plan's and the operator's own settings still win.
public enum StackDevelopmentKeys {
    /// The portal's token-signing key, and the public half verification reads (`JWT_PUBLIC_KEY_FILES`).
    public static let portalSigningKey = "portal-signing-key.pem"
    public static let portalSigningPublicKey = "portal-signing-key.pub.pem"
    static let portalTOTPKey = "portal-totp-key.hex"
    static let exportSigningKey = "export-signing-key.pem"
    static let protegoSigningKey = "protego-signing-key.pem"
    static let covidShieldKeyEncryptionKey = "covidshield-key-encryption-key"
    static let covidShieldRetrieveHMACKey = "covidshield-retrieve-hmac-key"
    static let signingKeyEncryptionKey = "signing-key-encryption-key"

    /// The settings that name `member`'s development keys in `directory` (the files `create` makes).
    public static func variables(for member: StackMember, in directory: String) -> [String: String] {
        func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }
        switch member {
        case .portal:
            return ["PORTAL_SIGNING_KEY_FILE": path(portalSigningKey), "TOTP_ENCRYPTION_KEY_FILE": path(portalTOTPKey)]
        case .submission:
            return [
                "SIGNING_KEY_FILE": path(exportSigningKey),
                "PROTEGO_SIGNING_KEY_FILE": path(protegoSigningKey),
                "COVIDSHIELD_KEY_ENCRYPTION_KEY_FILE": path(covidShieldKeyEncryptionKey),
                "COVIDSHIELD_RETRIEVE_HMAC_KEY_FILE": path(covidShieldRetrieveHMACKey),
            ]
        case .verification:
            return ["SIGNING_KEY_ENCRYPTION_KEY_FILE": path(signingKeyEncryptionKey)]
        case .testResult:
            return [:]
        }
    }

    /// Makes the development keys of `members` in `directory` where they are missing, and answers the names of those
    /// it made; a key made before (an earlier start of the suite, an older version that let the services make them
    /// under the same names) is kept.
    @discardableResult
    public static func create(for members: [StackMember], in directory: String) throws -> [String] {
        try PrivateFiles.createFolder(directory)
        var made: [String] = []
        func make(_ name: String, _ contents: () throws -> String) throws {
            if try PrivateFiles.createIfMissing((directory as NSString).appendingPathComponent(name), contents: contents) {
                made.append(name)
            }
        }
        func hexKey() -> String { SystemRandomSource().bytes(count: 32).hexString }
        if members.contains(.portal) {
            try make(portalSigningKey) { P256.Signing.PrivateKey().pemRepresentation }
            try make(portalTOTPKey, hexKey)
        }
        if members.contains(.submission) {
            try make(exportSigningKey) { P256.Signing.PrivateKey().pemRepresentation }
            try make(protegoSigningKey) { P256.Signing.PrivateKey().pemRepresentation }
            try make(covidShieldKeyEncryptionKey, hexKey)
            try make(covidShieldRetrieveHMACKey, hexKey)
        }
        if members.contains(.verification) {
            try make(signingKeyEncryptionKey, hexKey)
        }
        return made
    }
}
