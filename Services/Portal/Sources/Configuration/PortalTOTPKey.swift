import ExposureCore
import Foundation
import PortalDomain

/// The key that seals officers' TOTP secrets: `TOTP_ENCRYPTION_KEY` (64 hex digits, or `TOTP_ENCRYPTION_KEY_FILE`),
/// else one generated at the first start under `DATA_DIR` (mode 0600), like the portal's signing key. Replicas share
/// it: set it, or share the data directory.
public enum PortalTOTPKey {
    public static let fileName = "portal-totp-key.hex"

    public static func load(_ configuration: PortalConfiguration) throws -> [UInt8] {
        if let key = configuration.totpEncryptionKey { return key }
        let directory = URL(fileURLWithPath: configuration.dataDirectory).standardizedFileURL.path
        try PrivateFiles.createFolder(directory)
        let path = (directory as NSString).appendingPathComponent(fileName)
        if !FileManager.default.fileExists(atPath: path) {
            try PortalSigningKey.createExclusively(path, contents: SystemRandomSource().bytes(count: TOTPSecretSealer.keyBytes).hexString)
        }
        let text = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let key = [UInt8](hex: text), key.count == TOTPSecretSealer.keyBytes else {
            throw ConfigurationError(variable: "DATA_DIR", reason: "holds \(path), which is not 64 hex digits")
        }
        return key
    }
}
