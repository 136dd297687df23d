import ExposureCore
import ExposureTestSupport
import Foundation
import SubmissionDomain
import SubmissionLemon
import Testing

/// Survey aggregates: counts per day by status and symptom, small counts suppressed.
@Suite struct LemonAggregatesTests {
    @Test func smallCountsAreSuppressed() {
        let answers = (0..<3).map { _ in LemonSurveyAggregates.Answer(day: "2020-04-01", status: "Positive", symptoms: ["s-1", "s-2"]) }
            + [LemonSurveyAggregates.Answer(day: "2020-04-01", status: nil, symptoms: ["s-1"])]
        #expect(LemonSurveyAggregates(minimumCount: 3).csv(answers) == """
            day,kind,value,count
            2020-04-01,answers,,4
            2020-04-01,status,Positive,3
            2020-04-01,status,none,<3
            2020-04-01,symptom,s-1,4
            2020-04-01,symptom,s-2,3

            """)
    }

    @Test(arguments: TestDatabase.all)
    func storedSurveysAreCountedPerDay(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind) { h in
            let token = try await h.token(LemonTestDevice())
            for example in LemonSurveyTests.seedExamples {
                try await h.send("POST", "/api/v1/submission/covid", token: token, json: example).expectEnvelope(201)
            }
            let today = LemonSurveyValidator.day(of: h.clock.now())
            let csv = try await LemonSurveyExport.csv(database: h.base.database, from: today, to: today, minimumCount: 2)
            #expect(csv.contains("\(today),answers,,4\n"))
            #expect(csv.contains("\(today),status,Positive,<2\n"))
            #expect(csv.contains("\(today),symptom,question_positive_symptom-1,3\n"))
            let none = try await LemonSurveyExport.csv(database: h.base.database, from: "2020-01-01", to: "2020-01-02", minimumCount: 2)
            #expect(none == "day,kind,value,count\n")
        }
    }
}
