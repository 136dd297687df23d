import Foundation

/// A file holding a secret (a private key, a token) as a service accepts it from a `*_FILE` setting: readable by its
/// owner only. Services refuse a secret that other users can read, and a test's default umask would make it so.
public enum SecretFile {
    public static func write(_ text: String, to url: URL) throws {
        try Data(text.utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
    }

    public static func write(_ text: String, toFile path: String) throws {
        try write(text, to: URL(fileURLWithPath: path))
    }
}
