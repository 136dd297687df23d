import ExposureCore
import Foundation
import JWTKit

/// The P-256 key pair the portal signs local officers' tokens with.
///
/// An operator may provide the private key (`PORTAL_SIGNING_KEY_FILE`); otherwise the first start generates one
/// under the data directory and writes its public key beside it, for verification's `JWT_PUBLIC_KEY_FILES`.
/// The all-in-one launcher calls `loadOrCreate(in:)` before starting verification.
public struct PortalSigningKey: Sendable {
    public static let privateKeyFileName = "portal-signing-key.pem"
    public static let publicKeyFileName = "portal-signing-key.pub.pem"

    public let privateKey: ES256PrivateKey
    /// Where the public key was written (nil for an operator-provided key: the operator distributes it).
    public let publicKeyFile: String?
    public var publicKeyPEM: String { privateKey.publicKey.pemRepresentation }

    /// The configured key file, or the generated key under `DATA_DIR`.
    public static func load(_ configuration: PortalConfiguration) throws -> PortalSigningKey {
        if let file = configuration.signingKeyFile {
            let pem: String
            do {
                pem = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw ConfigurationError(variable: "PORTAL_SIGNING_KEY_FILE", reason: "names \(file), which cannot be read")
            }
            guard let key = try? ES256PrivateKey(pem: pem) else {
                throw ConfigurationError(variable: "PORTAL_SIGNING_KEY_FILE", reason: "names \(file), which is not a PEM P-256 private key")
            }
            return PortalSigningKey(privateKey: key, publicKeyFile: nil)
        }
        return try loadOrCreate(in: configuration.dataDirectory)
    }

    /// Reads `portal-signing-key.pem` in `directory`, creating it (mode 0600) on first use, and (re)writes
    /// `portal-signing-key.pub.pem` so that it always matches. Safe when several processes start at once: the
    /// key file appears complete or not at all, and the first one wins.
    public static func loadOrCreate(in directory: String) throws -> PortalSigningKey {
        // Absolute, so that the public key's path can be handed to a process with another working directory.
        let directory = URL(fileURLWithPath: directory).standardizedFileURL.path
        let fileManager = FileManager.default
        try PrivateFiles.createFolder(directory)
        let privatePath = (directory as NSString).appendingPathComponent(privateKeyFileName)
        let publicPath = (directory as NSString).appendingPathComponent(publicKeyFileName)
        if !fileManager.fileExists(atPath: privatePath) {
            try createExclusively(privatePath, contents: ES256PrivateKey().pemRepresentation)
        }
        let pem = try String(contentsOfFile: privatePath, encoding: .utf8)
        guard let key = try? ES256PrivateKey(pem: pem) else {
            throw ConfigurationError(variable: "DATA_DIR", reason: "holds \(privatePath), which is not a PEM P-256 private key")
        }
        let publicPEM = key.publicKey.pemRepresentation
        if (try? String(contentsOfFile: publicPath, encoding: .utf8)) != publicPEM {
            try Data(publicPEM.utf8).write(to: URL(fileURLWithPath: publicPath), options: .atomic)
        }
        return PortalSigningKey(privateKey: key, publicKeyFile: publicPath)
    }

    /// Writes a private temporary file, then hard-links it into place: `link(2)` fails when the target exists,
    /// so a concurrent creator's key is kept and nobody reads a half-written file.
    static func createExclusively(_ path: String, contents: String) throws {
        let temporary = path + ".\(getpid()).\(UInt64.random(in: 0...UInt64.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { unlink(temporary) }
        let bytes = Array(contents.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == bytes.count, synced == 0 else { throw POSIXError(.EIO) }
        if link(temporary, path) != 0, errno != EEXIST {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }
}
