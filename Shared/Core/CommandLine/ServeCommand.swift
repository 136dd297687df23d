import ArgumentParser
import Logging

/// `serve`: reads the service's configuration, builds its bundle (which migrates the database) and runs it until
/// SIGTERM or SIGINT.
public struct ServeCommand<Service: ServiceDefinition>: AsyncParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "serve", abstract: Service.serveAbstract)
    }

    @OptionGroup public var settings: SettingsOptions

    public init() {}

    public func run() async throws {
        let configuration = try settings.read { settings in
            let configuration = try Service.configuration(settings)
            try configuration.checkServing()
            return configuration
        }
        let logger = Logger(label: "exposure.\(Service.name)")
        try await ServiceRunner.run([try await Service.makeBundle(configuration, environment: ServiceEnvironment(logger: logger))], logger: logger)
    }
}
