import ArgumentParser
import ExposureCore

/// `submission-service`: the executable's command tree; `serve` when no command is named.
public struct SubmissionCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "submission-service",
        abstract: "Diagnosis keys in, with a TAN verified by the verification service; signed export files out.",
        version: ExposureSuite.version,
        subcommands: [ServeCommand<SubmissionService>.self, DistributeCommand.self, LemonImportCommand.self, LemonAggregatesCommand.self, MigrateCommand<SubmissionService>.self, HealthcheckCommand<SubmissionService>.self],
        defaultSubcommand: ServeCommand<SubmissionService>.self
    )

    public init() {}
}

extension SubmissionService: ServiceDefinition {
    public static let serveAbstract = "Migrate the database and serve the app-facing listener (with the retention and distribution jobs)."
    public static func configuration(_ settings: Settings) throws -> SubmissionConfiguration { try SubmissionConfiguration(settings) }
}

extension SubmissionConfiguration: ServiceConfiguration {
    /// The token of the service it calls and the keys of the families it serves, which only serving needs (its
    /// commands do not). None of them is ever generated.
    public func checkServing() throws(ConfigurationError) {
        _ = try ServiceTokens.required(verificationToken, variable: "VERIFICATION_API_TOKEN")
        try distribution.signing.checkConfigured()
        if families.covidShield { try covidShield.checkKeys() }
        if families.protego && protego.exports { try protego.signing.checkConfigured() }
    }
}
