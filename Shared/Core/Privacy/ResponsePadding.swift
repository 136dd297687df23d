import Foundation

/// Padding that gives every response of an endpoint the same size, real or fake.
///
/// A response is first encoded with empty padding; the padding then fills it up to the endpoint's fixed
/// size. Values that vary in length (a lab id, a larger `sc`) are absorbed by the padding.
public enum ResponsePadding {
    /// Characters used for padding: plain ASCII that needs no JSON escaping.
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// A padding string that makes `unpaddedSize` bytes reach `targetSize` (empty when already there).
    public static func padding(unpaddedSize: Int, targetSize: Int, random: any RandomSource) -> String {
        let count = max(0, targetSize - unpaddedSize)
        return String((0..<count).map { _ in alphabet[Int(random.uniform(below: UInt64(alphabet.count)))] })
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
