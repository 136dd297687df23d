import ExposureRules

/// A health-authority system allowed to issue one-time codes of one kind for one region through the issuer listener
/// (`/new-key-claim`, `/generateCode`, `/generateCodesBatch`), managed with `verification-service issuers`.
public struct CodeIssuer: Sendable, Equatable {
    public let name: String
    public let kind: OneTimeCodeKind
    public let region: String
    /// The health authority it issues for (`Authority.id`): while that authority is disabled or may not issue the
    /// issuer's family, the issuer's token is answered as an unknown one.
    public let authority: String

    public init(name: String, kind: OneTimeCodeKind, region: String, authority: String = Authority.defaultID) {
        self.name = name
        self.kind = kind
        self.region = region
        self.authority = authority
    }

    /// Whether a name is acceptable: 1 to 64 letters, digits, `-`, `_` and `.`.
    public static func isValidName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F || c == 0x2E
            }
    }
}

/// An issuer's bearer credential: `iss_` followed by 43 characters of base64url (32 random bytes). CovidShield's
/// systems send it as `Authorization: Bearer <token>`, ProteGO's as `api-token: <token>`.
///
/// Only its SHA-256 is stored (256 random bits need no key to resist guessing); the token itself is printed once, when
/// the issuer is added.
public enum IssuerToken {
    /// The format, shared with the other prefixed bearer credentials.
    public static let format = PrefixedBearerToken(prefix: "iss_")
    public static var prefix: String { format.prefix }

    public static func generate(using random: any RandomSource) -> String { format.generate(using: random) }

    public static func hash(_ token: String) -> String { format.hash(token) }

    public static func isWellFormed(_ text: String) -> Bool { format.isWellFormed(text) }
}

/// The rules of ProteGO's `generateCodesBatch` (backend HEAD): 1 to 1,000 codes per call, each living `duration`
/// seconds, which is 1800 or a whole number of hours up to 24.
public enum ProteGOBatch {
    public static let maxCodes = 1000

    public static func isValidNumberOfCodes(_ count: Int) -> Bool {
        (1...maxCodes).contains(count)
    }

    public static func isValidDuration(_ seconds: Int) -> Bool {
        seconds == 1800 || (seconds > 0 && seconds <= 86400 && seconds % 3600 == 0)
    }

    /// The reference's texts for the two refusals (400 INVALID_ARGUMENT).
    public static let numberOfCodesMessage = "Parameter numberOfCodes accepts numbers in range 1-1000."
    public static let durationMessage = "Parameter duration accepts only numbers: 1800, 3600, 7200, 10800, ..., 86400."
}
