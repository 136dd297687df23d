import ArgumentParser
import Logging

/// `migrate`: applies the service's migrations and exits.
public struct MigrateCommand<Service: ServiceDefinition>: AsyncParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "migrate", abstract: "Apply the database migrations and exit.")
    }

    @OptionGroup public var settings: SettingsOptions

    public init() {}

    public func run() async throws {
        try await Service.migrate(try settings.read(Service.commonSettings), environment: ServiceEnvironment(logger: Logger(label: "exposure.\(Service.name)")))
    }
}
