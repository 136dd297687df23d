import Foundation

/// Padding that gives every response of an endpoint the same size, real or fake.
///
/// A response is first encoded with empty padding; the padding then fills it up to the endpoint's fixed
/// size. Values that vary in length (a lab id, a larger `sc`) are absorbed by the padding.
public enum ResponsePadding {
    /// Characters used for padding: plain ASCII that needs no JSON escaping.
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
    /// Random bytes from this value up are dropped, so that every character of the alphabet stays equally likely.
    private static let unbiasedLimit = UInt8(256 / alphabet.count * alphabet.count)

    /// A padding string that makes `unpaddedSize` bytes reach `targetSize` (empty when already there).
    public static func padding(unpaddedSize: Int, targetSize: Int, random: any RandomSource) -> String {
        let count = max(0, targetSize - unpaddedSize)
        // Random bytes are drawn in bulk: one draw per character (a system call each with the system source)
        // made padding the largest single cost of a test-result poll (docs/benchmarks.md).
        var characters: [UInt8] = []
        characters.reserveCapacity(count)
        while characters.count < count {
            for byte in random.bytes(count: count - characters.count + 8) where byte < unbiasedLimit && characters.count < count {
                characters.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return String(decoding: characters, as: UTF8.self)
    }

    /// The encoder whose output size the padding is computed for; OpenAPI servers must encode with the
    /// same options (`OpenAPIServerConfiguration`).
    public static func measuringEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    /// `make(padding)` with the padding chosen so that its JSON encoding is exactly `targetSize` bytes
    /// (or, if the content alone is larger, unpadded).
    public static func padded<T: Encodable>(targetSize: Int, random: any RandomSource, _ make: (String) -> T) -> T {
        let bareSize = (try? measuringEncoder().encode(make("")).count) ?? targetSize
        return make(padding(unpaddedSize: bareSize, targetSize: targetSize, random: random))
    }
}
