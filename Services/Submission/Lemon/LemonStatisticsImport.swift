import ExposureCore
import Foundation
import SubmissionDomain

/// Imports a JHU CSSE daily report file into `lemon_statistics`: by `submission-service lemon-import` and by the
/// periodic job of `LEMON_STATISTICS_FILE`. The file is fetched by whatever the operator runs (a sidecar, a cron job):
/// the service reads a local file and makes no outgoing call.
public enum LemonStatisticsImport {
    public struct Unreadable: Error, CustomStringConvertible {
        let reason: String
        public var description: String { "the statistics file cannot be imported: \(reason)" }
    }

    /// Parses and stores one file; returns how many rows (countries and the world) it stored.
    @discardableResult
    public static func run(
        file: String, day: String?, configuration: LemonConfiguration, database: Database, clock: any WallClock
    ) async throws -> Int {
        let catalog = try LemonCatalogFiles.load(extraDirectory: configuration.dataDirectory)
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { throw Unreadable(reason: "\(file) cannot be read") }
        let counts: [LemonDailyCount]
        do {
            counts = try LemonDailyReport(catalog: catalog).parse(text, day: day)
        } catch {
            switch error {
            case .missingColumn(let name): throw Unreadable(reason: "no column \(name)")
            case .noDay: throw Unreadable(reason: "no Last_Update day; name the day")
            }
        }
        try await LemonStatisticsStore(database: database).store(counts, now: clock.now())
        return counts.count
    }
}
