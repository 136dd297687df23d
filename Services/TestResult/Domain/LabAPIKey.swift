import ExposureRules

/// A lab's bearer API key: `lab_` followed by 43 characters of base64url (32 random bytes).
///
/// Only its SHA-256 is stored; the key itself is shown once, when it is created.
public enum LabAPIKey {
    public static let prefix = "lab_"

    public static func generate(using random: any RandomSource) -> String {
        prefix + random.bytes(count: 32).base64URLString
    }

    public static func hash(_ key: String) -> String {
        SecretHash.sha256Hex(key)
    }

    /// Whether a text could be a key at all (cheap check before a lookup).
    public static func isWellFormed(_ text: String) -> Bool {
        text.hasPrefix(prefix) && text.utf8.count == prefix.utf8.count + 43
            && text.utf8.dropFirst(prefix.utf8.count).allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F
            }
    }

    /// Whether a lab id is acceptable: 1 to 64 characters of letters, digits, `-`, `_` and `.`.
    public static func isValidLabID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F || c == 0x2E
            }
    }
}
