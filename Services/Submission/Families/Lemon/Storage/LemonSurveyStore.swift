import ExposureCore
import SQLKit
import SubmissionDomain

/// `lemon_surveys`: survey answers under a random id, with no device and no time finer than the day.
struct LemonSurveyStore: Sendable {
    let database: Database

    func insert(_ survey: LemonSurvey, id: String) async throws {
        try await database.withConnection { connection in
            try await connection.raw("""
                INSERT INTO lemon_surveys (id, submitted_day, status, positive_test_day, negative_test_day, symptoms_from_day, country,
                    language, age, is_symptomatic, symptoms)
                VALUES (\(bind: id), \(bind: survey.submittedDay), \(bind: survey.status?.rawValue), \(bind: survey.positiveTestDay),
                    \(bind: survey.negativeTestDay), \(bind: survey.symptomsFromDay), \(bind: survey.country), \(bind: survey.language),
                    \(bind: survey.age), \(bind: survey.isSymptomatic), \(bind: survey.symptoms.joined(separator: ",")))
                """).run()
        }
    }
}

extension LemonSurveyStore {
    /// What the aggregates count, of the answers that arrived from `from` to `to` (days, inclusive).
    func answers(from: String, to: String) async throws -> [LemonSurveyAggregates.Answer] {
        try await database.withConnection { connection in
            try await connection.raw("""
                SELECT submitted_day, status, symptoms FROM lemon_surveys
                WHERE submitted_day >= \(bind: from) AND submitted_day <= \(bind: to)
                """).all().map { row in
                let symptoms = try row.decode(column: "symptoms", as: String.self)
                return LemonSurveyAggregates.Answer(
                    day: try row.decode(column: "submitted_day", as: String.self),
                    status: try row.decode(column: "status", as: String?.self),
                    symptoms: symptoms.isEmpty ? [] : symptoms.split(separator: ",").map(String.init)
                )
            }
        }
    }
}
