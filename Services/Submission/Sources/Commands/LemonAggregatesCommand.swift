import ArgumentParser
import ExposureCore
import Foundation
import Logging
import SubmissionDomain

/// `submission-service lemon-aggregates`: prints the LEMON survey counts per day (by status, by symptom) as CSV, counts
/// below `LEMON_AGGREGATE_MIN_COUNT` suppressed. Reads the database only.
struct LemonAggregatesCommand: AsyncParsableCommand, SettingsCommand {
    static let configuration = CommandConfiguration(
        commandName: "lemon-aggregates",
        abstract: "Print the LEMON survey answers as counts per day (CSV), small counts suppressed."
    )

    @Option(help: "First day (YYYY-MM-DD); default: 30 days before today.")
    var from: String?

    @Option(help: "Last day (YYYY-MM-DD); default: today.")
    var to: String?

    @OptionGroup var settings: SettingsOptions

    func run() async throws {
        let configuration = try settings.read { try SubmissionConfiguration($0) }
        let now = Date()
        let from = from ?? LemonSurveyValidator.day(of: now.addingTimeInterval(-30 * 86_400))
        let to = to ?? LemonSurveyValidator.day(of: now)
        let csv = try await SubmissionService.lemonAggregates(
            configuration, from: from, to: to, minimumCount: configuration.lemon.aggregateMinimumCount,
            environment: ServiceEnvironment(logger: Logger(label: "exposure.submission"))
        )
        print(csv, terminator: "")
    }
}
