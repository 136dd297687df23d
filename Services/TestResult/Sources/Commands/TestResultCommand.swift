import ArgumentParser
import ExposureCore

/// `testresult-service`: the executable's command tree; `serve` when no command is named.
public struct TestResultCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "testresult-service",
        abstract: "Lab results in, test status out.",
        version: ExposureSuite.version,
        subcommands: [ServeCommand<TestResultService>.self, MigrateCommand<TestResultService>.self, HealthcheckCommand<TestResultService>.self, LabsCommand.self],
        defaultSubcommand: ServeCommand<TestResultService>.self
    )

    public init() {}
}

extension TestResultService: ServiceDefinition {
    public static let serveAbstract = "Migrate the database and serve the lab and internal listeners."
    public static func configuration(_ settings: Settings) throws -> TestResultConfiguration { try TestResultConfiguration(settings) }
}

extension TestResultConfiguration: ServiceConfiguration {
    /// The tokens of the services it calls and answers, which only serving needs (its commands do not).
    public func checkServing() throws(ConfigurationError) {
        _ = try ServiceTokens.required(internalCallers, variable: "INTERNAL_API_TOKENS")
    }
}
