import ArgumentParser
import ExposureCore

/// `verification-service`: the executable's command tree; `serve` when no command is named.
public struct VerificationCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "verification-service",
        abstract: "Registration tokens, test results, TANs and teleTANs.",
        version: ExposureSuite.version,
        subcommands: [
            ServeCommand<VerificationService>.self, MigrateCommand<VerificationService>.self, HealthcheckCommand<VerificationService>.self,
            IssuersCommand.self, AuthoritiesCommand.self, ENXKeysCommand.self,
        ],
        defaultSubcommand: ServeCommand<VerificationService>.self
    )

    public init() {}
}

extension VerificationService: ServiceDefinition {
    public static let serveAbstract = "Migrate the database and serve the app-facing, internal and issuer listeners."
    public static func configuration(_ settings: Settings) throws -> VerificationConfiguration { try VerificationConfiguration(settings) }
}

extension VerificationConfiguration: ServiceConfiguration {
    /// The tokens of the services it calls and answers, which only serving needs (its commands do not).
    public func checkServing() throws(ConfigurationError) {
        _ = try ServiceTokens.required(internalCallers, variable: "INTERNAL_API_TOKENS")
        _ = try ServiceTokens.required(testResultToken, variable: "TESTRESULT_API_TOKEN")
    }
}
