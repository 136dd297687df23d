import ExposureCore
import Foundation

/// Random and mutated inputs for fuzz tests, reproducible from a seed.
///
/// Mutations are those of coverage-guided fuzzers, without the coverage: flipped bits, bytes replaced by
/// boundary values, inserted, deleted, duplicated or swapped ranges, truncation, and over-long varints (which
/// protobuf and JSON parsers both have to survive).
public struct ByteMutator: Sendable {
    public let random: SeededRandomSource

    /// The seed of `FUZZ_SEED` when set (to replay a failure), else `defaultSeed`.
    public init(defaultSeed: UInt64) {
        let seed = ProcessInfo.processInfo.environment["FUZZ_SEED"].flatMap(UInt64.init) ?? defaultSeed
        random = SeededRandomSource(seed: seed)
    }

    public func int(_ range: Range<Int>) -> Int {
        range.lowerBound + Int(random.uniform(below: UInt64(range.count)))
    }

    public func chance(_ probability: Double) -> Bool { random.unitInterval() < probability }

    public func pick<T>(_ choices: [T]) -> T { choices[int(0..<choices.count)] }

    /// Up to `maxCount` uniformly random bytes.
    public func bytes(maxCount: Int) -> [UInt8] { random.bytes(count: int(0..<(maxCount + 1))) }

    /// `input` with one to four mutations.
    public func mutate(_ input: [UInt8]) -> [UInt8] {
        var data = input
        for _ in 0..<int(1..<5) { mutateOnce(&data) }
        return data
    }

    private static let boundaryBytes: [UInt8] = [0x00, 0x01, 0x7F, 0x80, 0xFF, 0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D]

    private func mutateOnce(_ data: inout [UInt8]) {
        guard !data.isEmpty else {
            data = bytes(maxCount: 16)
            return
        }
        let at = int(0..<data.count)
        switch int(0..<9) {
        case 0: data[at] ^= 1 << UInt8(int(0..<8))
        case 1: data[at] = pick(Self.boundaryBytes)
        case 2: data.insert(contentsOf: bytes(maxCount: 8), at: at)
        case 3: data.removeSubrange(at..<min(data.count, at + int(1..<17)))
        case 4: data.insert(contentsOf: data[at..<min(data.count, at + int(1..<33))], at: int(0..<data.count))
        case 5: data.removeSubrange(int(0..<data.count)...)
        case 6: data.insert(contentsOf: [UInt8](repeating: 0xFF, count: int(5..<12)) + [0x01], at: at)
        case 7:
            let other = int(0..<data.count)
            data.swapAt(at, other)
        default: data[at] = UInt8(truncatingIfNeeded: random.uint64())
        }
    }
}
