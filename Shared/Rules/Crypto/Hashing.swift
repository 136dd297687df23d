import Crypto
import Foundation

/// Hashing and comparison of secrets. Every secret (registration token, TAN, teleTAN, API key) is stored
/// only as the lower-case hex SHA-256 of its text.
public enum SecretHash {
    public static func sha256Hex(_ text: String) -> String {
        sha256Hex(Array(text.utf8))
    }

    public static func sha256Hex(_ bytes: some Sequence<UInt8>) -> String {
        SHA256.hash(data: Array(bytes)).hexString
    }

    /// Compares two byte strings in time that depends only on their lengths, never on where they differ.
    public static func constantTimeEquals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(lhs, rhs) { difference |= a ^ b }
        return difference == 0
    }

    public static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        constantTimeEquals(Array(lhs.utf8), Array(rhs.utf8))
    }
}

extension Sequence where Element == UInt8 {
    /// Lower-case hexadecimal.
    public var hexString: String {
        var out: [UInt8] = []
        out.reserveCapacity(underestimatedCount * 2)
        out.appendHex(of: self)
        return String(decoding: out, as: UTF8.self)
    }
}

extension Array where Element == UInt8 {
    /// Appends `bytes` in lower-case hexadecimal, the digits of `hexString` without a string in between.
    public mutating func appendHex(of bytes: some Sequence<UInt8>) {
        for byte in bytes {
            append(lowerHexDigits[Int(byte >> 4)])
            append(lowerHexDigits[Int(byte & 0x0F)])
        }
    }
}

/// Built once, not on every call: the distribution spells a million keys in hex in its first run.
private let lowerHexDigits = Array("0123456789abcdef".utf8)

extension Sequence where Element == UInt8 {
    /// Unpadded base64url (RFC 4648 §5), as tokens, keys and JWKs use it.
    public var base64URLString: String {
        Data(self).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

extension Array where Element == UInt8 {
    /// Parses hexadecimal text (either case); nil when it is not hex or has an odd length.
    public init?(hex: String) {
        let utf8 = Array(hex.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self = bytes
    }
}
