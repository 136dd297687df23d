import ExposureCore
import SubmissionDomain

/// `submission-service lemon-aggregates`: the survey answers of a range of days as counts per day (CSV), small counts
/// suppressed (`LemonSurveyAggregates`). Nothing else leaves the survey table.
public enum LemonSurveyExport {
    public static func csv(database: Database, from: String, to: String, minimumCount: Int) async throws -> String {
        let answers = try await LemonSurveyStore(database: database).answers(from: from, to: to)
        return LemonSurveyAggregates(minimumCount: minimumCount).csv(answers)
    }
}
