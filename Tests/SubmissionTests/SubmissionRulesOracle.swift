import ExposureProtocol
import Foundation
import SwiftProtobuf

/// The upload rules of the contract (design/submission-and-distribution.md, "Validation"; the mapping table of
/// `TransmissionRiskMapping`'s documentation), restated for the fuzz tests as plainly as they read there, with the
/// service's default settings: 1 to 14 keys, home country DE, the EU and EEA countries, 14 days of retention.
///
/// It is the fuzz tests' expected answer, so it must not come from `SubmissionValidator`, the code under test: it
/// calls nothing of the Submission module. What it shares with the service is the decoding of the bytes
/// (swift-protobuf, from the schema), not any rule.
enum SubmissionRulesOracle {
    /// A key as the store keeps it, in the columns the tests compare.
    struct StoredKey: Hashable, CustomStringConvertible {
        let keyData: Data
        let rollingStart: Int32
        let rollingPeriod: Int32
        let transmissionRisk: Int32

        var description: String {
            "\(keyData.map { String(format: "%02x", $0) }.joined()) start \(rollingStart) period \(rollingPeriod) risk \(transmissionRisk)"
        }
    }

    /// The visited countries an upload may name: the EU member states and Iceland, Liechtenstein and Norway, in
    /// ISO 3166 alpha-2 (Greece is GR).
    static let supportedCountries: Set<String> = [
        "AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU", "IE", "IT", "LT", "LU",
        "LV", "MT", "NL", "PL", "PT", "RO", "SE", "SI", "SK", "IS", "LI", "NO",
    ]

    /// The keys an upload of `body` received at `now` stores, or nil when the upload must be refused (400, nothing
    /// stored).
    static func storedKeys(_ body: [UInt8], now: Date) -> [StoredKey]? {
        guard let payload = try? SubmissionPayload(serializedBytes: body) else { return nil }

        // The submission type (field 7) is PCR (0, also when absent) or rapid test (1). A value the schema does not
        // name is kept among the unknown fields; it must not pass for the default, so such an upload is refused, as
        // is one whose unknown fields cannot be read (they might hide one).
        guard let unknown = topLevelFieldNumbers(in: [UInt8](payload.unknownFields.data)), !unknown.contains(7) else { return nil }
        guard [0, 1].contains(payload.submissionType.rawValue) else { return nil }

        guard (1...14).contains(payload.keys.count) else { return nil }
        // origin: absent, empty or the home country.
        guard !payload.hasOrigin || payload.origin.isEmpty || payload.origin == "DE" else { return nil }
        guard payload.visitedCountries.allSatisfy(supportedCountries.contains) else { return nil }

        // Every key must be well-formed, or the whole upload is refused, even when the key would have been dropped.
        for key in payload.keys {
            guard key.keyData.count == 16 else { return nil }
            guard key.rollingStartIntervalNumber % 144 == 0 else { return nil }
            // Absent, the rolling period reads as the contract's default, 144.
            guard (1...144).contains(key.rollingPeriod) else { return nil }
            if key.hasTransmissionRiskLevel, !(1...8).contains(key.transmissionRiskLevel) { return nil }
            if key.hasDaysSinceOnsetOfSymptoms, !(-14...4000).contains(key.daysSinceOnsetOfSymptoms) { return nil }
            guard key.hasTransmissionRiskLevel || key.hasDaysSinceOnsetOfSymptoms else { return nil }
        }

        // Unusable keys are dropped without a word: a start not after the epoch, in the future (after the current
        // ten-minute interval), or before the first day of the retention window (today's UTC midnight less 14 days);
        // of keys with the same data, only the first left is kept.
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        let currentInterval = seconds / 600
        let oldest = (currentInterval - currentInterval % 144) - 14 * 144
        var kept: [StoredKey] = []
        var seen: Set<Data> = []
        for key in payload.keys {
            let start = Int64(key.rollingStartIntervalNumber)
            guard start > 0, start <= currentInterval, start >= oldest, seen.insert(key.keyData).inserted else { continue }
            kept.append(StoredKey(
                keyData: key.keyData, rollingStart: key.rollingStartIntervalNumber, rollingPeriod: key.rollingPeriod,
                transmissionRisk: key.hasTransmissionRiskLevel ? key.transmissionRiskLevel : riskLevel(daysSinceOnset: key.daysSinceOnsetOfSymptoms)
            ))
        }
        return kept
    }

    /// The default table from days since onset of symptoms (-14...4000) to transmission risk level, for a key
    /// that carries only the days.
    static func riskLevel(daysSinceOnset days: Int32) -> Int32 {
        switch days {
        case -14 ... -6: 1
        case -5: 2
        case -4: 4
        case -3: 6
        case -2: 7
        case -1...2: 8
        case 3...4: 7
        case 5...6: 6
        case 7...8: 5
        case 9...10: 4
        case 11...12: 3
        case 13...14: 2
        case 15...21: 1
        default: 5  // 22...4000: the apps' codes for an unknown onset, a middle level
        }
    }

    /// The field numbers at the top level of raw protobuf `bytes` (those inside a group belong to the group); nil
    /// when the bytes are not well-formed.
    static func topLevelFieldNumbers(in bytes: [UInt8]) -> Set<Int>? {
        var index = 0
        func varint() -> UInt64? {
            var value: UInt64 = 0
            for shift in stride(from: 0, to: 64, by: 7) {
                guard index < bytes.count else { return nil }
                let byte = bytes[index]
                index += 1
                value |= UInt64(byte & 0x7F) << UInt64(shift)
                if byte < 0x80 { return value }
            }
            return nil
        }
        var numbers: Set<Int> = []
        var groups: [UInt64] = []
        while index < bytes.count {
            guard let tag = varint(), tag >> 3 > 0 else { return nil }
            let field = tag >> 3
            if groups.isEmpty, tag & 7 != 4 { numbers.insert(Int(clamping: field)) }
            switch tag & 7 {
            case 0: guard varint() != nil else { return nil }
            case 1: index += 8
            case 2:
                guard let length = varint(), length <= UInt64(bytes.count - index) else { return nil }
                index += Int(length)
            case 3: groups.append(field)
            case 4: guard groups.popLast() == field else { return nil }
            case 5: index += 4
            default: return nil
            }
            guard index <= bytes.count else { return nil }
        }
        return groups.isEmpty ? numbers : nil
    }
}
