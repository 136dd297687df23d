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

    @Flag(help: "Ask /health/live (the process answers) instead of /health/ready (its database and the services it calls answer).")
    public var live = false

    @Option(help: ArgumentHelp("The longest the check may take, connecting included: 250ms, 5s, …", valueName: "duration"))
    public var timeout = "5s"

    @OptionGroup public var settings: SettingsOptions

    public init() {}

    public func validate() throws {
        guard let duration = Settings.parseDuration(timeout), duration > .zero else {
            throw ValidationError("--timeout takes a duration such as 250ms or 5s, not '\(timeout)'")
        }
    }

    public func run() async throws {
        let name = "\(Service.name) healthcheck"
        let state = live ? "live" : "ready"
        let configuration: Service.Configuration
        do {
            configuration = try settings.read(setUpLogging: false, Service.configuration)
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("\(name): \(error.description)\n".utf8))
            throw ExitCode.failure
        }
        let probe = HealthProbe(
            listener: configuration.common.managementListener,
            route: live ? .live : .ready,
            timeout: Settings.parseDuration(timeout) ?? .seconds(5)
        )
        let outcome = await probe.run()
        guard outcome.healthy else {
            FileHandle.standardError.write(Data("\(Service.name): not \(state): \(outcome.message)\n".utf8))
            throw ExitCode.failure
        }
        print("\(Service.name): \(state): \(outcome.message)")
    }
}
