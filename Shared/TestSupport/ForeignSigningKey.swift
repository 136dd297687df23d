import Crypto
import Foundation

/// A P-256 key made for one test and trusted by nothing: for tests of a service that must refuse what it signs.
public enum ForeignSigningKey {
    /// The public half of a new key, in a new file (PEM).
    public static func publicKeyFile() throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("foreign-\(UUID().uuidString).pub.pem")
        try P256.Signing.PrivateKey().publicKey.pemRepresentation.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }
}
