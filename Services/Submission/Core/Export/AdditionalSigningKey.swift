import ExposureCore

/// A key that signs every export file beside the primary one (`SIGNING_KEY_FILE`), under its own verification key
/// version: an entry of `SIGNING_ADDITIONAL_KEY_FILES` (or a region's `PROTEGO_SIGNING_ADDITIONAL_KEY_FILES`). It lets a
/// new key be published alongside the old one during a rotation (docs/operations.md, "Export-signing key").
public struct AdditionalSigningKey: Sendable, Equatable {
    /// A PEM P-256 private key, read at start-up.
    public var file: String
    public var keyVersion: String
    public var keyID: String

    public init(file: String, keyVersion: String, keyID: String) {
        self.file = file
        self.keyVersion = keyVersion
        self.keyID = keyID
    }

    /// The comma-separated entries `path|version` or `path|version|keyID` of `variable` (the key id defaults to the
    /// primary key's). A phone picks the signature to check by key id and version, so an entry that reuses the pair
    /// of the primary key or of an earlier entry is refused, as is a malformed one.
    public static func list(
        _ settings: Settings, variable: String, primaryKeyID: String, primaryKeyVersion: String
    ) throws(ConfigurationError) -> [AdditionalSigningKey] {
        var keys: [AdditionalSigningKey] = []
        for (index, entry) in try settings.list(variable, default: []).enumerated() {
            let parts = entry.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard (2...3).contains(parts.count), !parts.contains(where: \.isEmpty) else {
                throw ConfigurationError(variable: variable, reason: "entry \(index + 1) must be path|version or path|version|keyID, got '\(entry)'")
            }
            try SettingFile.check(parts[0], variable: variable, holds: .secret)
            let key = AdditionalSigningKey(file: parts[0], keyVersion: parts[1], keyID: parts.count == 3 ? parts[2] : primaryKeyID)
            let taken = [(primaryKeyID, primaryKeyVersion)] + keys.map { ($0.keyID, $0.keyVersion) }
            guard !taken.contains(where: { $0 == (key.keyID, key.keyVersion) }) else {
                throw ConfigurationError(
                    variable: variable,
                    reason: "entry \(index + 1) repeats key id \(key.keyID) version \(key.keyVersion), which another signing key already has: give each key its own version"
                )
            }
            keys.append(key)
        }
        return keys
    }
}
