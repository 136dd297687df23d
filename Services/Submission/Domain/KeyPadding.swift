import ExposureRules
import Foundation

/// Optional random key padding: with multiplier m, every real key is stored with m - 1 companions that carry
/// its attributes but random key data. Published files then show m times the real number of keys, so the
/// number of people who uploaded cannot be read off the files; the random keys match no phone's identifiers.
public struct KeyPadding: Sendable {
    public let multiplier: Int

    public init(multiplier: Int) {
        precondition(multiplier >= 1)
        self.multiplier = multiplier
    }

    /// m - 1 random companions per key (none when the multiplier is 1).
    public func companions(for keys: [DiagnosisKey], random: any RandomSource) -> [DiagnosisKey] {
        guard multiplier > 1 else { return [] }
        var padding: [DiagnosisKey] = []
        padding.reserveCapacity(keys.count * (multiplier - 1))
        for key in keys {
            for _ in 1..<multiplier {
                var companion = key
                companion.keyData = Data(random.bytes(count: 16))
                padding.append(companion)
            }
        }
        return padding
    }
}
