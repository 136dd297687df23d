/// A bearer credential of 32 random bytes, written as its prefix and 43 characters of base64url: labs' API keys
/// (`lab_`), health-authority issuers' tokens (`iss_`). Only its SHA-256 is stored (256 random bits need no key to
/// resist guessing); the token itself is shown once, when it is made.
public struct PrefixedBearerToken: Sendable {
    public let prefix: String

    public init(prefix: String) {
        self.prefix = prefix
    }

    public func generate(using random: any RandomSource) -> String {
        prefix + random.bytes(count: 32).base64URLString
    }

    public func hash(_ token: String) -> String {
        SecretHash.sha256Hex(token)
    }

    /// Whether a text could be such a token at all (a cheap check before a lookup).
    public func isWellFormed(_ text: String) -> Bool {
        text.hasPrefix(prefix) && text.utf8.count == prefix.utf8.count + 43
            && text.utf8.dropFirst(prefix.utf8.count).allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F
            }
    }
}
