import Foundation

/// What a setting that names a file may name: the checks every such file passes before a service starts, so that a
/// mount that failed, a secret store that wrote nothing or a key others can read stops start-up with one line instead
/// of a silent default, a generated key or a leak.
public enum SettingFile {
    /// What the named file holds, which decides how private it must be.
    public enum Contents: Sendable {
        /// A private key, a token, a password: the file must not be readable or writable by other users (group access
        /// is allowed, as a Kubernetes secret volume with `defaultMode: 0440` gives it).
        case secret
        /// A certificate, a public key, a configuration document: anyone may read it.
        case publicData
    }

    /// Checks that `path`, which `variable` names, is a regular file that can be read and is not empty, and, holding a
    /// secret, that other users can neither read nor write it.
    public static func check(_ path: String, variable: String, holds contents: Contents) throws(ConfigurationError) {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw ConfigurationError(variable: variable, reason: "names \(path), which does not exist or cannot be reached")
        }
        guard (attributes[.type] as? FileAttributeType) == .typeRegular else {
            throw ConfigurationError(variable: variable, reason: "names \(path), which is not a regular file")
        }
        guard FileManager.default.isReadableFile(atPath: path), let handle = FileHandle(forReadingAtPath: path) else {
            throw ConfigurationError(variable: variable, reason: "names \(path), which cannot be read")
        }
        try? handle.close()
        guard ((attributes[.size] as? NSNumber)?.intValue ?? 0) > 0 else {
            throw ConfigurationError(variable: variable, reason: "names \(path), which is empty")
        }
        if contents == .secret, let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue, mode & 0o007 != 0 {
            throw ConfigurationError(
                variable: variable,
                reason: "names \(path), which other users can access (mode \(String(mode, radix: 8))): it holds a secret; chmod 600 (or 640/440 for a group)"
            )
        }
    }
}
