import Foundation

/// Google's exposure-notifications-server's check of the keys of one upload, which both of its APIs apply (v1alpha1 to
/// ProteGO's uploads, v1 to ENX's): sorted by start interval and then period, at most `maxKeysPerStart` keys may share
/// a start (a GAEN 1.5 phone releases the day's key early and starts another of the same day), and a key of a later
/// start must not begin before the keys before it end. The same key data twice is one key sent twice.
public enum GAENKeyOverlap {
    /// ENS's `MAX_SAME_START_INTERVAL_KEYS` default.
    public static let maxKeysPerStart = 3

    public enum Problem: Sendable, Equatable {
        case sameKeyTwice
        case tooManyOfOneStart
        case overlapping
    }

    /// The first problem of `keys` (data, start interval, period); nil when there is none.
    public static func problem(_ keys: [(data: Data, start: Int64, period: Int64)]) -> Problem? {
        guard Set(keys.map(\.data)).count == keys.count else { return .sameKeyTwice }
        let sorted = keys.sorted { ($0.start, $0.period) < ($1.start, $1.period) }
        var previousStart: Int64?
        var nextStart = Int64.min
        var sameStart = 0
        for key in sorted {
            if key.start == previousStart {
                sameStart += 1
                guard sameStart <= maxKeysPerStart else { return .tooManyOfOneStart }
            } else {
                guard key.start >= nextStart else { return .overlapping }
                previousStart = key.start
                sameStart = 1
            }
            nextStart = key.start + key.period
        }
        return nil
    }
}
