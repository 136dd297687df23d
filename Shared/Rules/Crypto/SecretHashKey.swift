import Crypto
import Foundation

/// One key of the HMAC under which typed secrets are stored (`TypedSecretHasher`), with the id stored beside each
/// hash so that a lookup knows which key made it.
public struct SecretHashKey: Sendable {
    public let id: String
    let key: SymmetricKey

    /// The id of rows stored as plain SHA-256 before keyed hashes: no key can be configured under it.
    public static let legacyID = "sha256"
    /// Bytes of key material at least, and what `newEntry` makes: the HMAC's full strength.
    public static let minimumBytes = 32

    public init(id: String, key: [UInt8]) {
        self.id = id
        self.key = SymmetricKey(data: key)
    }

    /// Parses the configured keys: `id:base64` entries separated by commas or line breaks, the current key first.
    /// Ids are 1–32 letters, digits, `-` or `_`; a key is at least 32 bytes.
    public static func parseList(_ text: String, variable: String) throws(ConfigurationError) -> [SecretHashKey] {
        let entries = text.split(whereSeparator: { $0 == "," || $0.isNewline })
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        guard !entries.isEmpty else { throw ConfigurationError(variable: variable, reason: "must hold at least one key (id:base64)") }
        var keys: [SecretHashKey] = []
        for (index, entry) in entries.enumerated() {
            let parts = entry.split(separator: ":", maxSplits: 1).map(String.init)
            // The position, never the value: this is a secret.
            let which = "entry \(index + 1)"
            guard parts.count == 2 else { throw ConfigurationError(variable: variable, reason: "\(which) must be id:base64") }
            let id = parts[0]
            guard (1...32).contains(id.count), id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                throw ConfigurationError(variable: variable, reason: "\(which): an id is 1 to 32 letters, digits, - or _")
            }
            guard id != legacyID else { throw ConfigurationError(variable: variable, reason: "\(which): the id \(legacyID) is reserved") }
            guard !keys.contains(where: { $0.id == id }) else { throw ConfigurationError(variable: variable, reason: "\(which): the id \(id) is used twice") }
            guard let bytes = Data(base64Encoded: parts[1]), bytes.count >= minimumBytes else {
                throw ConfigurationError(variable: variable, reason: "\(which): the key must be base64 of at least \(minimumBytes) bytes")
            }
            keys.append(SecretHashKey(id: id, key: Array(bytes)))
        }
        return keys
    }

    /// A new entry for a key list: `id:` and 32 random bytes in base64.
    public static func newEntry(id: String, random: any RandomSource) -> String {
        "\(id):" + Data(random.bytes(count: minimumBytes)).base64EncodedString()
    }

    /// Creates `path` holding one new entry (mode 0600) unless it exists: development set-ups that keep their own key.
    public static func createKeyFileIfMissing(at path: String, id: String, random: any RandomSource) throws {
        guard !FileManager.default.fileExists(atPath: path) else { return }
        let created = FileManager.default.createFile(
            atPath: path, contents: Data((newEntry(id: id, random: random) + "\n").utf8), attributes: [.posixPermissions: 0o600]
        )
        if !created { throw CocoaError(.fileWriteUnknown) }
    }
}
