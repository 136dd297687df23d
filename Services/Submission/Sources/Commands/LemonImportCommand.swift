import ArgumentParser
import ExposureCore
import Logging

/// `submission-service lemon-import <file>`: imports one JHU CSSE daily report into the LEMON statistics store, for a
/// scheduler or by hand; the service's own job does the same every `LEMON_STATISTICS_INTERVAL`.
struct LemonImportCommand: AsyncParsableCommand, SettingsCommand {
    static let configuration = CommandConfiguration(
        commandName: "lemon-import",
        abstract: "Import a JHU CSSE daily report (CSV) into the LEMON statistics, then exit."
    )

    @Argument(help: "The daily report, e.g. csse_covid_19_daily_reports/05-17-2020.csv.")
    var file: String

    @Option(help: "The day the counts are for (YYYY-MM-DD); default: the latest Last_Update in the file.")
    var day: String?

    @OptionGroup var settings: SettingsOptions

    func run() async throws {
        let configuration = try settings.read { try SubmissionConfiguration($0) }
        let logger = Logger(label: "exposure.submission")
        let rows = try await SubmissionService.importLemonStatistics(configuration, file: file, day: day, environment: ServiceEnvironment(logger: logger))
        print("Imported \(rows) row(s) (countries and the world).")
    }
}
