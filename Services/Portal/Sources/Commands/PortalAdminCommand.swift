import ArgumentParser
import ExposureCore
import Logging

/// A portal command that works on the portal's database: `users …` and `audit`. The executable reads the
/// configuration from its settings and opens the database; a caller in the same process (the launcher, tests)
/// hands it a `PortalAdmin.Context` of its own.
protocol PortalAdminCommand: AsyncParsableCommand, SettingsCommand {
    func output(in context: PortalAdmin.Context) async throws -> String
}

extension PortalAdminCommand {
    func run() async throws {
        let configuration = try settings.read { try PortalConfiguration($0) }
        let environment = ServiceEnvironment(logger: Logger(label: "exposure.portal"))
        print(try await PortalAdmin.withContext(configuration, environment: environment) { try await output(in: $0) })
    }
}
