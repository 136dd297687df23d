import ExposureRules
import Foundation

/// The v1 key server's checks of a publish request's keys (design sheet enx.md, 2.9), which differ from the
/// v1alpha1 checks ProteGO's uploads get (`ProteGOUploadValidator`) in one way that matters: a key that is bad on its
/// own (its data not 16 bytes of base64, its period outside 1…144, its risk outside 0…8, too old or in the future)
/// is dropped and the others are kept (200 `partial_failure`), while the set as a whole (none or more than 30 keys,
/// all bad, more than 3 of one start, overlapping keys of different starts) refuses the request (400 `bad_request`).
public enum ENXPublishValidator {
    public static let maxKeys = 30
    public static let maxKeysPerStart = GAENKeyOverlap.maxKeysPerStart
    /// The reference's `MaxIntervalAge`: a key must end within the last 360 hours.
    public static let maxKeyAge: Int64 = 360 * 3600

    /// A key that passed, with its bytes.
    public struct Accepted: Sendable, Equatable {
        public let sent: ENXPublishedKey
        public let data: Data
    }

    /// The keys to keep, in the order sent, and a sentence for each key dropped.
    public struct Outcome: Sendable, Equatable {
        public let accepted: [Accepted]
        public let dropped: [String]
    }

    public static func validate(_ keys: [ENXPublishedKey], now: Int64) throws(ENXPublishRejection) -> Outcome {
        guard !keys.isEmpty else { throw ENXPublishRejection(.badRequest, "no exposure keys in publish request") }
        guard keys.count <= maxKeys else {
            throw ENXPublishRejection(.badRequest, "too many exposure keys in publish request: \(keys.count), max of \(maxKeys) is allowed")
        }
        let currentInterval = now / 600
        let oldestEnd = (now - maxKeyAge) / 600
        var accepted: [Accepted] = []
        var dropped: [String] = []
        for (index, key) in keys.enumerated() {
            guard let data = Data(lenientBase64: key.key), data.count == 16 else {
                dropped.append("key \(index): the key is not 16 bytes of base64"); continue
            }
            guard (1...144).contains(key.rollingPeriod) else {
                dropped.append("key \(index): rollingPeriod must be between 1 and 144"); continue
            }
            guard (0...8).contains(key.transmissionRisk) else {
                dropped.append("key \(index): transmissionRisk must be between 0 and 8"); continue
            }
            guard key.rollingStartNumber + key.rollingPeriod >= oldestEnd else {
                dropped.append("key \(index): the key ended more than 360 hours ago"); continue
            }
            guard key.rollingStartNumber <= currentInterval else {
                dropped.append("key \(index): the key starts in the future"); continue
            }
            accepted.append(Accepted(sent: key, data: data))
        }
        guard !accepted.isEmpty else { throw ENXPublishRejection(.badRequest, "no valid exposure keys: " + dropped.joined(separator: "; ")) }
        try checkNoOverlap(accepted)
        return Outcome(accepted: accepted, dropped: dropped)
    }

    /// The reference's check of the set (`GAENKeyOverlap`), in its words.
    static func checkNoOverlap(_ keys: [Accepted]) throws(ENXPublishRejection) {
        switch GAENKeyOverlap.problem(keys.map { ($0.data, $0.sent.rollingStartNumber, $0.sent.rollingPeriod) }) {
        case nil: return
        case .sameKeyTwice: throw ENXPublishRejection(.badRequest, "the same exposure key was sent twice")
        case .tooManyOfOneStart:
            throw ENXPublishRejection(.badRequest, "too many overlapping keys: at most \(maxKeysPerStart) keys may share a start interval")
        case .overlapping: throw ENXPublishRejection(.badRequest, "exposure keys of different start intervals overlap")
        }
    }
}
