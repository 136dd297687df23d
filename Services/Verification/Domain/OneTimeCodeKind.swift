import ExposureRules

/// The one-time codes of the other app families, which a health worker gives a patient and the patient's app redeems
/// once (openapi/verification.yaml, `/version/v1/codes`). The CWA teleTAN is not one of them: it has its own endpoint,
/// alphabet and check character.
///
/// Each kind is drawn uniformly from its whole space with the injected CSPRNG (`RandomSource.uniform`, no modulo bias)
/// and stored only as a keyed hash (`OneTimeCodeKind.hashInput`).
public enum OneTimeCodeKind: String, Sendable, CaseIterable {
    /// CovidShield (seed 001): 8 decimal digits, zero-padded, dead 10 minutes after issue unless claimed.
    case covidShield = "COVIDSHIELD"
    /// ProteGO Safe (seeds 002, 004): a PIN of 6 characters of `0-9A-Z` with at least one letter and one digit, dead
    /// after 30 minutes; the app's input is compared upper-cased.
    case proteGO = "PROTEGO"

    /// The characters a code is made of.
    public var alphabet: [Character] {
        switch self {
        case .covidShield: Self.digits
        case .proteGO: Self.digits + Self.letters
        }
    }

    public var length: Int {
        switch self {
        case .covidShield: 8
        case .proteGO: 6
        }
    }

    /// How many different codes there are: what a guess has to find one live code among.
    public var spaceSize: Int {
        switch self {
        case .covidShield: 100_000_000
        // 36^6 less those without a letter (10^6) and those without a digit (26^6).
        case .proteGO: 2_176_782_336 - 1_000_000 - 308_915_776
        }
    }

    /// The role an officer's token must carry to issue this kind: the one of TEST teleTANs, since both stand for a
    /// positive test reported by phone.
    public var requiredRole: String { TeleTANType.test.requiredRole }

    /// A new code, uniform over the kind's whole space.
    public func generate(using random: any RandomSource) -> String {
        switch self {
        case .covidShield:
            // One draw below 10^8, zero-padded: every one of the 10^8 codes equally likely.
            let value = random.uniform(below: UInt64(spaceSize))
            let digits = String(value)
            return String(repeating: "0", count: length - digits.count) + digits
        case .proteGO:
            // Uniform strings of the alphabet, drawn again until one has a letter and a digit: uniform over the
            // valid PINs (about 86 % of strings are valid, so a draw or two).
            while true {
                let candidate = String((0..<length).map { _ in alphabet[Int(random.uniform(below: UInt64(alphabet.count)))] })
                if isWellFormed(candidate) { return candidate }
            }
        }
    }

    /// The code as it is compared and stored, or nil when `text` cannot be a code of this kind (a lookup could not
    /// find it): exact digits for CovidShield, upper-cased for ProteGO.
    public func normalized(_ text: String) -> String? {
        let candidate = self == .proteGO ? String(text.map { $0.isASCII ? Character($0.uppercased()) : $0 }) : text
        return isWellFormed(candidate) ? candidate : nil
    }

    /// Whether `code` (already normalized) has this kind's form.
    public func isWellFormed(_ code: String) -> Bool {
        let characters = Array(code)
        guard characters.count == length, characters.allSatisfy(alphabet.contains) else { return false }
        switch self {
        case .covidShield:
            return true
        case .proteGO:
            return characters.contains(where: Self.digits.contains) && characters.contains(where: Self.letters.contains)
        }
    }

    /// What is hashed for storage: the kind before the code, so that one key's hashes of different kinds (and of
    /// teleTANs, under the same keys) never coincide.
    public func hashInput(_ code: String) -> String {
        "\(rawValue):\(code)"
    }

    private static let digits = Array("0123456789")
    private static let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
}

/// A code redeemed: where and when it was issued (openapi/verification.yaml, `RedeemedOneTimeCode`).
public struct RedeemedOneTimeCode: Sendable, Equatable {
    public let region: String
    /// Unix seconds.
    public let issuedAt: Int64

    public init(region: String, issuedAt: Int64) {
        self.region = region
        self.issuedAt = issuedAt
    }
}

/// The regions codes are issued for: one per kind, from the configuration (`COVIDSHIELD_REGION`, `PROTEGO_REGION`),
/// and the form every region has (openapi/verification.yaml, `Region`).
public struct OneTimeCodeRegions: Sendable, Equatable {
    public var covidShield: String
    public var proteGO: String

    public init(covidShield: String = "ON", proteGO: String = "PL") {
        self.covidShield = covidShield
        self.proteGO = proteGO
    }

    public func region(of kind: OneTimeCodeKind) -> String {
        switch kind {
        case .covidShield: covidShield
        case .proteGO: proteGO
        }
    }

    /// 1 to 16 letters, digits, `_` or `-`.
    public static func isValid(_ region: String) -> Bool {
        (1...16).contains(region.utf8.count)
            && region.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x2D
            }
    }
}
