import ExposureCore
import Foundation
import Testing
@testable import Submission

/// `RedemptionKey`: one submission, one key; any other submission or TAN, another.
@Suite struct RedemptionKeyTests {
    static let tan = "3b1e5a1c-8f0a-4c1e-9d2b-6a7f0e1d2c3b"

    static func key(_ byte: UInt8) -> DiagnosisKey {
        DiagnosisKey(
            keyData: Data(repeating: byte, count: 16), rollingStartIntervalNumber: 2_800_000 + Int32(byte) * 144,
            rollingPeriod: 144, transmissionRiskLevel: 6, daysSinceOnsetOfSymptoms: 2, reportType: 1,
            originCountry: "DE", visitedCountries: ["FR", "NL"], consentToFederation: true, submissionType: 0
        )
    }

    @Test
    func theSameSubmissionGivesTheSameKeyInAnyOrder() {
        let keys = (1...3).map(Self.key)
        let derived = RedemptionKey.derive(tan: Self.tan, keys: keys)
        #expect(Codes.isRedemptionKey(derived))
        #expect(RedemptionKey.derive(tan: Self.tan, keys: keys.reversed()) == derived)
    }

    @Test
    func anyChangeToTheTANOrAKeyGivesAnotherKey() {
        let keys = (1...3).map(Self.key)
        let derived = RedemptionKey.derive(tan: Self.tan, keys: keys)
        let changes: [(String, (inout DiagnosisKey) -> Void)] = [
            ("keyData", { $0.keyData[0] ^= 1 }),
            ("rollingStartIntervalNumber", { $0.rollingStartIntervalNumber += 144 }),
            ("rollingPeriod", { $0.rollingPeriod = 143 }),
            ("transmissionRiskLevel", { $0.transmissionRiskLevel = 5 }),
            ("daysSinceOnsetOfSymptoms", { $0.daysSinceOnsetOfSymptoms = 3 }),
            ("reportType", { $0.reportType = 2 }),
            ("originCountry", { $0.originCountry = "AT" }),
            ("visitedCountries", { $0.visitedCountries = ["FR"] }),
            ("consentToFederation", { $0.consentToFederation = false }),
            ("submissionType", { $0.submissionType = 1 }),
        ]
        for (field, change) in changes {
            var changed = keys
            change(&changed[1])
            #expect(RedemptionKey.derive(tan: Self.tan, keys: changed) != derived, "\(field)")
        }
        #expect(RedemptionKey.derive(tan: Self.tan, keys: Array(keys.prefix(2))) != derived)
        #expect(RedemptionKey.derive(tan: "4b1e5a1c-8f0a-4c1e-9d2b-6a7f0e1d2c3b", keys: keys) != derived)
        // Field boundaries are part of the encoding: moving a character between two countries changes the key.
        var shifted = keys
        shifted[1].originCountry = "DEF"
        shifted[1].visitedCountries = ["R", "NL"]
        #expect(RedemptionKey.derive(tan: Self.tan, keys: shifted) != derived)
    }
}
