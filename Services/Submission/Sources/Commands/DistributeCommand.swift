import ArgumentParser
import ExposureCore
import Logging

/// `submission-service distribute`: one distribution run, for a scheduler instead of `serve`'s timer.
struct DistributeCommand: AsyncParsableCommand, SettingsCommand {
    static let configuration = CommandConfiguration(
        commandName: "distribute",
        abstract: "Publish signed export files and indexes once, then exit (one replica at a time)."
    )

    @OptionGroup var settings: SettingsOptions

    func run() async throws {
        let configuration = try settings.read { try SubmissionConfiguration($0) }
        let logger = Logger(label: "exposure.submission")
        if let report = try await SubmissionService.distribute(configuration, environment: ServiceEnvironment(logger: logger)) {
            print("Published to \(configuration.distribution.tree.location): \(report.filesWritten) new file(s), "
                + "\(report.keysPublished) key(s) in new hourly files, \(report.keysPending) key(s) held back for later hours.")
        } else {
            print("Another replica is running the distribution; nothing done.")
        }
    }
}
