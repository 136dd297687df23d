@testable import SubmissionDomain
import Testing

@testable import Submission
@testable import SubmissionCore

@Suite struct TransmissionRiskMappingTests {
    let standard = TransmissionRiskMapping.standard

    @Test func theDefaultFollowsInfectiousnessAroundOnset() {
        #expect(standard.riskLevel(forDaysSinceOnset: -14) == 1)
        #expect(standard.riskLevel(forDaysSinceOnset: -3) == 6)
        #expect(standard.riskLevel(forDaysSinceOnset: -1) == 8)
        #expect(standard.riskLevel(forDaysSinceOnset: 0) == 8)
        #expect(standard.riskLevel(forDaysSinceOnset: 2) == 8)
        #expect(standard.riskLevel(forDaysSinceOnset: 7) == 5)
        #expect(standard.riskLevel(forDaysSinceOnset: 21) == 1)
        #expect(standard.riskLevel(forDaysSinceOnset: 2000) == 5)
        #expect(standard.riskLevel(forDaysSinceOnset: 4000) == 5)
        #expect((1...8).map { standard.daysSinceOnset(forRiskLevel: $0) } == [15, 13, 11, 9, 7, 5, 3, 0])
    }

    @Test func derivingOneFieldAndThenTheOtherIsStable() {
        for level in TransmissionRiskMapping.riskLevels {
            #expect(standard.riskLevel(forDaysSinceOnset: standard.daysSinceOnset(forRiskLevel: level)) == level)
        }
    }

    @Test func everyDayHasALevel() {
        for days in TransmissionRiskMapping.daysSinceOnset {
            #expect(TransmissionRiskMapping.riskLevels.contains(standard.riskLevel(forDaysSinceOnset: days)))
        }
    }

    @Test func aCustomMappingIsParsed() throws {
        let flat = try TransmissionRiskMapping.parse(daysToRisk: "-14..4000:4", riskToDays: "1:0, 2:0, 3:0, 4:0, 5:0, 6:0, 7:0, 8:0")
        #expect(flat.riskLevel(forDaysSinceOnset: 100) == 4)
        #expect(flat.daysSinceOnset(forRiskLevel: 8) == 0)
    }

    @Test func gapsOverlapsAndBadValuesAreRefused() {
        let allLevels = TransmissionRiskMapping.defaultRiskToDays
        for daysToRisk in ["-14..0:1", "-14..0:1,2..4000:2", "-14..5:1,5..4000:2", "-14..4000:9", "-15..4000:1", "-14..4001:1", "x:1", "-14..4000"] {
            #expect(throws: TransmissionRiskMapping.ParseError.self, "\(daysToRisk)") {
                try TransmissionRiskMapping.parse(daysToRisk: daysToRisk, riskToDays: allLevels)
            }
        }
        for riskToDays in ["1:0", "1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:5000", "1:0,1:1,2:0,3:0,4:0,5:0,6:0,7:0,8:0", "0:0,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0"] {
            #expect(throws: TransmissionRiskMapping.ParseError.self, "\(riskToDays)") {
                try TransmissionRiskMapping.parse(daysToRisk: TransmissionRiskMapping.defaultDaysToRisk, riskToDays: riskToDays)
            }
        }
    }
}
