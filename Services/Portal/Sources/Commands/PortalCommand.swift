import ArgumentParser
import ExposureCore

/// `portal-service`: the executable's command tree; `serve` when no command is named.
public struct PortalCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "portal-service",
        abstract: "The web portal where public-health officers issue teleTANs.",
        version: ExposureSuite.version,
        subcommands: [
            ServeCommand<PortalService>.self, MigrateCommand<PortalService>.self, HealthcheckCommand<PortalService>.self,
            UsersCommand.self, AuditCommand.self, SigningKeyCommand.self,
        ],
        defaultSubcommand: ServeCommand<PortalService>.self
    )

    public init() {}
}

extension PortalService: ServiceDefinition {
    public static let serveAbstract = "Migrate the database and serve the portal."
    public static func configuration(_ settings: Settings) throws -> PortalConfiguration { try PortalConfiguration(settings) }
}

extension PortalConfiguration: ServiceConfiguration {
    /// The token of the service it calls and the keys it signs and seals with, which only serving needs (its
    /// commands do not).
    public func checkServing() throws(ConfigurationError) {
        _ = try ServiceTokens.required(verificationToken, variable: "VERIFICATION_API_TOKEN")
        _ = try PortalSigningKey.load(self)
        if localLogin { _ = try PortalTOTPKey.load(self) }
    }
}
