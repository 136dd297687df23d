import ExposureCore
import ExposureTestSupport
import Foundation
import SubmissionDomain
import SubmissionLemon
import Testing

/// Survey aggregates: counts per day by status and symptom, small counts suppressed, and the counts that would give a
/// small one away by subtraction suppressed with it.
@Suite struct LemonAggregatesTests {
    /// What an attacker learns by subtraction: every equation (a total and its cells) with exactly one term withheld
    /// gives that term; repeated until nothing more is learnt. Returns the terms learnt.
    static func recoveredBySubtraction(published: [String: Int], groups: [LemonCellSuppression<String>.Group]) -> Set<String> {
        var known = published
        var learnt: Set<String> = []
        var changed = true
        while changed {
            changed = false
            for group in groups {
                let unknown = ([group.total] + group.cells).filter { known[$0] == nil }
                guard unknown.count == 1 else { continue }
                let value = unknown[0] == group.total
                    ? group.cells.reduce(0) { $0 + known[$1]! }
                    : known[group.total]! - group.cells.filter { $0 != unknown[0] }.reduce(0) { $0 + known[$1]! }
                known[unknown[0]] = value
                learnt.insert(unknown[0])
                changed = true
            }
        }
        return learnt
    }

    @Test func noSmallStatusCountCanBeWorkedOutFromTheDaysTotal() {
        var random = RandomSourceGenerator(SeededRandomSource(seed: 51))
        let statuses: [String?] = ["Positive", "Negative", "Unsure", "Recovered", nil]
        for round in 0..<300 {
            let k = Int.random(in: 2...10, using: &random)
            // Days of a few answers each, skewed so that most days have some small and some large statuses.
            let answers = (0..<Int.random(in: 1...60, using: &random)).map { _ in
                let weights = [0, 0, 0, 0, 1, 1, 2, 3, 4]
                return LemonSurveyAggregates.Answer(day: "2020-04-0\(Int.random(in: 1...3, using: &random))",
                                                    status: statuses[weights.randomElement(using: &random)!], symptoms: [])
            }
            let csv = LemonSurveyAggregates(minimumCount: k).csv(answers)
            for day in Set(answers.map(\.day)) {
                let ofDay = answers.filter { $0.day == day }
                var truth: [String: Int] = ["answers,": ofDay.count]
                for answer in ofDay { truth["status,\(answer.status ?? "none")", default: 0] += 1 }
                var published: [String: Int] = [:]
                for line in csv.split(separator: "\n") where line.hasPrefix(day) {
                    let parts = line.split(separator: ",", omittingEmptySubsequences: false)
                    let key = "\(parts[1]),\(parts[2])", text = String(parts[3])
                    if let count = Int(text) {
                        #expect(count == truth[key] && count >= k, "round \(round): \(line)")
                        published[key] = count
                    } else if text == "x" {
                        #expect(truth[key]! >= k, "round \(round): \(line) is withheld though it is small")
                    } else {
                        #expect(text == "<\(k)" && truth[key]! < k, "round \(round): \(line)")
                    }
                }
                let group = LemonCellSuppression<String>.Group(total: "answers,", cells: truth.keys.filter { $0.hasPrefix("status,") })
                let learnt = Self.recoveredBySubtraction(published: published, groups: [group])
                #expect(learnt.isEmpty, "round \(round), \(day): \(learnt) worked out from \(csv)")
            }
        }
    }

    /// The rule over rows and columns that both add up (a table with row, column and grand totals): no withheld cell can
    /// be worked out, however the subtractions are chained.
    @Test func complementarySuppressionHoldsAcrossRowsAndColumns() {
        var random = RandomSourceGenerator(SeededRandomSource(seed: 7))
        for round in 0..<300 {
            let size = Int.random(in: 2...5, using: &random)
            var counts: [String: Int] = [:]
            for row in 0..<size {
                for column in 0..<size { counts["c\(row)\(column)"] = [1, 2, 3, 12, 20, 40].randomElement(using: &random)! }
            }
            var groups: [LemonCellSuppression<String>.Group] = []
            for row in 0..<size {
                counts["r\(row)"] = (0..<size).reduce(0) { $0 + counts["c\(row)\($1)"]! }
                groups.append(.init(total: "r\(row)", cells: (0..<size).map { "c\(row)\($0)" }))
            }
            for column in 0..<size {
                counts["k\(column)"] = (0..<size).reduce(0) { $0 + counts["c\($1)\(column)"]! }
                groups.append(.init(total: "k\(column)", cells: (0..<size).map { "c\($0)\(column)" }))
            }
            counts["all"] = (0..<size).reduce(0) { $0 + counts["r\($1)"]! }
            groups.append(.init(total: "all", cells: (0..<size).map { "r\($0)" }))
            groups.append(.init(total: "all", cells: (0..<size).map { "k\($0)" }))
            let marks = LemonCellSuppression<String>(minimumCount: 10).marks(counts, groups: groups)
            let published = counts.filter { marks[$0.key] == .published }
            #expect(Self.recoveredBySubtraction(published: published, groups: groups).isEmpty, "round \(round): \(counts) \(marks)")
            #expect(counts.allSatisfy { ($0.value < 10) == (marks[$0.key] == .small) }, "round \(round)")
        }
        // Without the complementary cells, the first table of this kind gives its small cell away.
        let counts = ["a": 3, "b": 20, "total": 23]
        let group = LemonCellSuppression<String>.Group(total: "total", cells: ["a", "b"])
        #expect(Self.recoveredBySubtraction(published: counts.filter { $0.value >= 10 }, groups: [group]) == ["a"])
        #expect(LemonCellSuppression<String>(minimumCount: 10).marks(counts, groups: [group]) == ["a": .small, "b": .complementary, "total": .published])
    }

    @Test func smallCountsAreSuppressed() {
        let answers = (0..<3).map { _ in LemonSurveyAggregates.Answer(day: "2020-04-01", status: "Positive", symptoms: ["s-1", "s-2"]) }
            + [LemonSurveyAggregates.Answer(day: "2020-04-01", status: nil, symptoms: ["s-1"])]
        #expect(LemonSurveyAggregates(minimumCount: 3).csv(answers) == """
            day,kind,value,count
            2020-04-01,answers,,4
            2020-04-01,status,Positive,x
            2020-04-01,status,none,<3
            2020-04-01,symptom,s-1,4
            2020-04-01,symptom,s-2,3

            """)
    }

    @Test(arguments: TestDatabase.all)
    func storedSurveysAreCountedPerDay(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind, settings: ["LEMON_SURVEYS_PER_DEVICE_DAY": "4"]) { h in
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
