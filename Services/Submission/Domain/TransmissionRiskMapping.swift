import Foundation

/// How a key that carries only one of transmission risk level (TRL, 1...8) and days since onset of symptoms
/// (DSOS, -14...4000) gets the other.
///
/// Keys are stored with both, because the two generations of the exposure framework read different fields:
/// v1 phones weigh keys by TRL, v2 phones by report type and DSOS (which distribution re-derives from TRL).
///
/// The default reflects how infectious a person is relative to the onset of symptoms: highest from the day
/// before to two days after onset, lower further out on either side.
///
/// | DSOS          | TRL | why                                                          |
/// |---------------|-----|--------------------------------------------------------------|
/// | -14 ... -6    | 1   | long before onset: little viral shedding                     |
/// | -5            | 2   |                                                              |
/// | -4            | 4   |                                                              |
/// | -3            | 6   | pre-symptomatic transmission rises                           |
/// | -2            | 7   |                                                              |
/// | -1 ... 2      | 8   | peak infectiousness around onset                             |
/// | 3 ... 4       | 7   |                                                              |
/// | 5 ... 6       | 6   |                                                              |
/// | 7 ... 8       | 5   |                                                              |
/// | 9 ... 10      | 4   |                                                              |
/// | 11 ... 12     | 3   |                                                              |
/// | 13 ... 14     | 2   |                                                              |
/// | 15 ... 21     | 1   | late after onset                                             |
/// | 22 ... 4000   | 5   | the apps' encoded categories (onset unknown, no information, |
/// |               |     | asymptomatic): no day is known, so a middle level            |
///
/// TRL → DSOS picks, for each level, a day after onset that maps back to the same level (8 → 0, 7 → 3, 6 → 5,
/// 5 → 7, 4 → 9, 3 → 11, 2 → 13, 1 → 15), so deriving one field and then the other is stable.
public struct TransmissionRiskMapping: Sendable, Equatable {
    public static let riskLevels: ClosedRange<Int32> = 1...8
    public static let daysSinceOnset: ClosedRange<Int32> = -14...4000

    /// One range of DSOS values and the TRL they map to.
    public struct Range: Sendable, Equatable {
        public let days: ClosedRange<Int32>
        public let riskLevel: Int32

        public init(days: ClosedRange<Int32>, riskLevel: Int32) {
            self.days = days
            self.riskLevel = riskLevel
        }
    }

    /// Ranges covering every DSOS value exactly once, in ascending order.
    public let daysToRisk: [Range]
    /// Index `level - 1` holds the DSOS for TRL `level`.
    public let riskToDays: [Int32]

    /// Builds a mapping; nil unless `daysToRisk` covers -14...4000 without gaps or overlaps and `riskToDays`
    /// holds a DSOS for each TRL 1...8, every value within its range.
    public init?(daysToRisk: [Range], riskToDays: [Int32: Int32]) {
        let sorted = daysToRisk.sorted { $0.days.lowerBound < $1.days.lowerBound }
        // Int64 so that the step past 4000 cannot overflow whatever bounds were configured.
        var next = Int64(Self.daysSinceOnset.lowerBound)
        for range in sorted {
            guard Int64(range.days.lowerBound) == next, Self.riskLevels.contains(range.riskLevel) else { return nil }
            next = Int64(range.days.upperBound) + 1
        }
        guard next == Int64(Self.daysSinceOnset.upperBound) + 1 else { return nil }
        guard Set(riskToDays.keys) == Set(Self.riskLevels),
              riskToDays.values.allSatisfy({ Self.daysSinceOnset.contains($0) }) else { return nil }
        self.daysToRisk = sorted
        self.riskToDays = Self.riskLevels.map { riskToDays[$0]! }
    }

    /// The TRL for a DSOS within -14...4000.
    public func riskLevel(forDaysSinceOnset days: Int32) -> Int32 {
        precondition(Self.daysSinceOnset.contains(days))
        // At most a few dozen ranges: a linear scan is as fast as anything else.
        return daysToRisk.first { $0.days.contains(days) }!.riskLevel
    }

    /// The DSOS for a TRL within 1...8.
    public func daysSinceOnset(forRiskLevel level: Int32) -> Int32 {
        precondition(Self.riskLevels.contains(level))
        return riskToDays[Int(level) - 1]
    }

    public static let defaultDaysToRisk = "-14..-6:1,-5:2,-4:4,-3:6,-2:7,-1..2:8,3..4:7,5..6:6,7..8:5,9..10:4,11..12:3,13..14:2,15..21:1,22..4000:5"
    public static let defaultRiskToDays = "1:15,2:13,3:11,4:9,5:7,6:5,7:3,8:0"

    /// The mapping of the table above.
    public static let standard = try! parse(daysToRisk: defaultDaysToRisk, riskToDays: defaultRiskToDays)

    public enum ParseError: Error, Equatable {
        /// Which of the two texts is wrong (`daysToRisk` or `riskToDays`) and why.
        case daysToRisk(String)
        case riskToDays(String)
    }

    /// Parses the configuration texts: `DSOS_TO_TRL` is a comma-separated list of `from..to:level` or
    /// `day:level` entries; `TRL_TO_DSOS` a comma-separated list of `level:day` entries.
    public static func parse(daysToRisk: String, riskToDays: String) throws(ParseError) -> TransmissionRiskMapping {
        var ranges: [Range] = []
        for entry in daysToRisk.split(separator: ",") {
            let parts = entry.trimmingCharacters(in: .whitespaces).split(separator: ":")
            guard parts.count == 2, let level = Int32(parts[1].trimmingCharacters(in: .whitespaces)) else {
                throw .daysToRisk("entry '\(entry)' is not from..to:level or day:level")
            }
            let bounds = parts[0].trimmingCharacters(in: .whitespaces).components(separatedBy: "..")
            guard (1...2).contains(bounds.count), let low = Int32(bounds[0]), let high = Int32(bounds[bounds.count - 1]), low <= high else {
                throw .daysToRisk("entry '\(entry)' has no valid day range")
            }
            ranges.append(Range(days: low...high, riskLevel: level))
        }
        var levels: [Int32: Int32] = [:]
        for entry in riskToDays.split(separator: ",") {
            let parts = entry.trimmingCharacters(in: .whitespaces).split(separator: ":")
            guard parts.count == 2, let level = Int32(parts[0].trimmingCharacters(in: .whitespaces)), let days = Int32(parts[1].trimmingCharacters(in: .whitespaces)),
                  levels.updateValue(days, forKey: level) == nil else {
                throw .riskToDays("entry '\(entry)' is not level:day, or repeats a level")
            }
        }
        // Check each side on its own, so that the error names the setting that is wrong.
        guard TransmissionRiskMapping(daysToRisk: ranges, riskToDays: standardRiskToDaysForChecking) != nil else {
            throw .daysToRisk("must cover every day from -14 to 4000 exactly once, with levels 1 to 8")
        }
        guard let mapping = TransmissionRiskMapping(daysToRisk: ranges, riskToDays: levels) else {
            throw .riskToDays("must give a day between -14 and 4000 for each level 1 to 8")
        }
        return mapping
    }

    private static let standardRiskToDaysForChecking: [Int32: Int32] = Dictionary(uniqueKeysWithValues: riskLevels.map { ($0, 0) })
}
