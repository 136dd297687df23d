import ArgumentParser
import Foundation

/// `healthcheck`: GETs the service's own `/health/ready` (or `/health/live`) on its management listener and exits 0
/// when it answers 200, 1 otherwise, with one line saying what it found. For container health checks: the runtime
/// image has no curl, and the executable already knows the listener's address from the settings `serve` reads.
///
/// Every failure exits 1, an invalid setting too (which other commands answer with 2): Docker reserves exit code 2
/// of a health check, and an orchestrator needs only healthy or not.
public struct HealthcheckCommand<Service: ServiceDefinition>: AsyncParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "healthcheck",
            abstract: "Ask this service's management listener whether it is ready (or live); exit 0 if so, 1 if not."
        )
    }

    @OptionGroup public var options: HealthcheckOptions
    @OptionGroup public var settings: SettingsOptions

    public init() {}

    public func run() async throws {
        let configuration: Service.Configuration
        do {
            configuration = try settings.read(setUpLogging: false, Service.configuration)
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("\(Service.name) healthcheck: \(error.description)\n".utf8))
            throw ExitCode.failure
        }
        let probe = HealthProbe(listener: configuration.common.managementListener, route: options.route, timeout: options.duration)
        let outcome = await probe.run()
        guard outcome.healthy else {
            FileHandle.standardError.write(Data("\(Service.name): not \(options.state): \(outcome.message)\n".utf8))
            throw ExitCode.failure
        }
        print("\(Service.name): \(options.state): \(outcome.message)")
    }
}
