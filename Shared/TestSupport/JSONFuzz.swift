import ExposureCore
import Foundation

/// Random JSON for fuzz tests of a JSON API, reproducible from the mutator's seed: values of every JSON type
/// (with the words and field names of the API under test among them), and valid requests with one field twisted.
public struct JSONFuzz: Sendable {
    public let mutator: ByteMutator
    /// Strings the API gives meaning to (enum values, codes), tried beside generic troublemakers.
    public let words: [String]
    /// Field names of the API's bodies, for the objects `randomValue` makes.
    public let fieldNames: [String]

    public init(_ mutator: ByteMutator, words: [String], fieldNames: [String]) {
        self.mutator = mutator
        self.words = words
        self.fieldNames = fieldNames
    }

    /// A random JSON value, nested at most `depth` levels.
    public func randomValue(depth: Int = 3) -> Any {
        switch mutator.int(0..<(depth > 0 ? 9 : 7)) {
        case 0: return NSNull()
        case 1: return mutator.chance(0.5)
        case 2: return mutator.pick([0, -1, 1, Int.max, Int.min, 1_750_000_000])
        case 3: return mutator.pick([0.5, -1e308, 1e308, 3.14])
        case 4: return mutator.pick(words + ["", "{}", "\u{0}", "🦠", String(repeating: "a", count: 5_000)])
        case 5: return Codes.uuidV4(using: SystemRandomSource()).uppercased()
        case 6: return String(decoding: mutator.bytes(maxCount: 40).map { $0 & 0x7F }, as: UTF8.self)
        case 7: return (0..<mutator.int(0..<4)).map { _ in randomValue(depth: depth - 1) }
        default:
            var object: [String: Any] = [:]
            for _ in 0..<mutator.int(0..<4) {
                object[mutator.pick(fieldNames + ["x", ""])] = randomValue(depth: depth - 1)
            }
            return object
        }
    }

    /// `template` with one field removed or replaced by a different random value (and maybe joined by an unknown
    /// one). Fields are picked in sorted order, so that a seed replays the same run (dictionary order does not).
    public func twisted(_ template: [String: Any]) -> Any {
        var object = template
        let field = mutator.pick(template.keys.sorted())
        if mutator.int(0..<3) == 0 {
            object[field] = nil
            return object
        }
        // A draw equal to the original (say "TELETAN" for keyType) would leave the request valid.
        let original = Self.encode(template[field]!)
        repeat { object[field] = randomValue(depth: 1) } while Self.encode(object[field]!) == original
        if mutator.chance(0.5) { object["unexpected"] = randomValue(depth: 1) }
        return object
    }

    public static func encode(_ value: Any) -> [UInt8] {
        Array((try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])) ?? Data("null".utf8))
    }
}
