import ExposureRules

/// A lab's bearer API key: `lab_` followed by 43 characters of base64url (32 random bytes).
///
/// Only its SHA-256 is stored; the key itself is shown once, when it is created.
public enum LabAPIKey {
    /// The format, shared with the other prefixed bearer credentials.
    public static let format = PrefixedBearerToken(prefix: "lab_")
    public static var prefix: String { format.prefix }

    public static func generate(using random: any RandomSource) -> String { format.generate(using: random) }

    public static func hash(_ key: String) -> String { format.hash(key) }

    public static func isWellFormed(_ text: String) -> Bool { format.isWellFormed(text) }

    /// Whether a lab id is acceptable: 1 to 64 characters of letters, digits, `-`, `_` and `.`.
    public static func isValidLabID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F || c == 0x2E
            }
    }
}
