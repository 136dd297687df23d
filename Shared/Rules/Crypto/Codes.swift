import Crypto
import Foundation

/// Formats of the codes that phones, labs and officers exchange, and their generation.
public enum Codes {
    // MARK: UUID v4 (registration tokens and TANs)

    /// A random UUID v4 in lower case, e.g. `3b1e5a1c-8f0a-4c1e-9d2b-6a7f0e1d2c3b`.
    public static func uuidV4(using random: any RandomSource) -> String {
        var bytes = random.bytes(count: 16)
        bytes[6] = (bytes[6] & 0x0F) | 0x40  // version 4
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        let hex = bytes.hexString
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32]
            .map { String(characters[$0]) }
            .joined(separator: "-")
    }

    /// Whether `text` is a lower-case UUID v4 as the apps send it.
    public static func isUUIDv4(_ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else { return false }
        for (index, c) in utf8.enumerated() {
            switch index {
            case 8, 13, 18, 23:
                guard c == UInt8(ascii: "-") else { return false }
            case 14:
                guard c == UInt8(ascii: "4") else { return false }
            case 19:
                guard c == UInt8(ascii: "8") || c == UInt8(ascii: "9") || c == UInt8(ascii: "a") || c == UInt8(ascii: "b")
                else { return false }
            default:
                guard isLowerHex(c) else { return false }
            }
        }
        return true
    }

    // MARK: Hashed GUIDs (test ids)

    /// 64 hex characters (SHA-256 of a test's GUID); with `allowDobPrefix`, the first may be `x`/`X`,
    /// which marks the date-of-birth variant.
    public static func isHashedGUID(_ text: String, allowDobPrefix: Bool = false) -> Bool {
        let utf8 = Array(text.utf8)
        guard utf8.count == 64 else { return false }
        for (index, c) in utf8.enumerated() {
            if index == 0, allowDobPrefix, c == UInt8(ascii: "x") || c == UInt8(ascii: "X") { continue }
            guard isHex(c) else { return false }
        }
        return true
    }

    // MARK: teleTANs

    /// The 31 characters a teleTAN is made of: no 0, O, 1, I or L, so that it reads unambiguously over the phone.
    public static let teleTANAlphabet = Array("23456789ABCDEFGHJKMNPQRSTUVWXYZ")
    public static let teleTANBodyLength = 9

    /// The check character of a 9-character teleTAN body: the first hex digit of SHA-256 of the body,
    /// upper-cased, with `0` → `G` and `1` → `H` (both digits are outside the alphabet).
    public static func teleTANCheckCharacter(for body: String) -> Character {
        let first = Array(SHA256.hash(data: Array(body.utf8)).hexString.uppercased()).first!
        switch first {
        case "0": return "G"
        case "1": return "H"
        default: return first
        }
    }

    /// A new 10-character teleTAN (9 random characters and the check character).
    public static func teleTAN(using random: any RandomSource) -> String {
        let body = String((0..<teleTANBodyLength).map { _ in
            teleTANAlphabet[Int(random.uniform(below: UInt64(teleTANAlphabet.count)))]
        })
        return body + String(teleTANCheckCharacter(for: body))
    }

    /// Whether `text` is a well-formed teleTAN with a correct check character. A typo fails here,
    /// before any database lookup.
    public static func isValidTeleTAN(_ text: String) -> Bool {
        let characters = Array(text)
        guard characters.count == teleTANBodyLength + 1 else { return false }
        let body = characters.prefix(teleTANBodyLength)
        guard body.allSatisfy({ teleTANAlphabet.contains($0) }) else { return false }
        return teleTANCheckCharacter(for: String(body)) == characters.last
    }

    // MARK: Redemption keys (a TAN verification that may be repeated)

    /// 32 lower-case hex characters: 128 bits, as `openapi/verification.yaml`'s `RedemptionKey` says.
    public static func isRedemptionKey(_ text: String) -> Bool { isKey128(text) }

    /// A random redemption key, for verifications that only imitate a real one.
    public static func redemptionKey(using random: any RandomSource) -> String { key128(using: random) }

    // MARK: Idempotency keys (a teleTAN request that may be repeated)

    /// 32 lower-case hex characters: 128 bits, as `openapi/verification.yaml`'s `IdempotencyKey` says.
    public static func isIdempotencyKey(_ text: String) -> Bool { isKey128(text) }

    /// A new idempotency key: one per teleTAN an officer asks for, kept for the retries of that request.
    public static func idempotencyKey(using random: any RandomSource) -> String { key128(using: random) }

    // MARK: Origin hashes (where a phone's redemption of a one-time code came from)

    /// 32 lower-case hex characters: a 128-bit keyed hash, as `openapi/verification.yaml`'s `GuessOrigin` says.
    public static func isOriginHash(_ text: String) -> Bool { isKey128(text) }

    // MARK: Helpers

    private static func isKey128(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy(isLowerHex)
    }

    private static func key128(using random: any RandomSource) -> String {
        random.bytes(count: 16).hexString
    }

    private static func isLowerHex(_ c: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(c)
    }

    private static func isHex(_ c: UInt8) -> Bool {
        isLowerHex(c) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(c)
    }
}
