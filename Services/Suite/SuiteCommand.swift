import ArgumentParser
import ExposureCore
import Foundation

/// `exposure-suite`: every service in one process (`serve`, the default), or the story end to end (`demo`).
///
/// The suite reads its settings from environment variables only (docs/operations.md, "exposure-suite"), so its
/// commands declare their two flags themselves and argument-parser refuses any other.
struct SuiteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exposure-suite",
        abstract: "All four ExposureSuite services in one process, on SQLite files in ./data.",
        version: ExposureSuite.version,
        subcommands: [Serve.self, Demo.self, Healthcheck.self, DevelopmentKeys.self],
        defaultSubcommand: Serve.self
    )

    /// `--log-level` and `--log-format`, the suite's only flags; `LOG_LEVEL` and `LOG_FORMAT` otherwise.
    struct LoggingOptions: ParsableArguments {
        @Option(help: "trace, debug, info, notice, warning, error or critical (LOG_LEVEL; default info).") var logLevel: String?
        @Option(help: "logfmt or json (LOG_FORMAT; default logfmt).") var logFormat: String?

        /// Sets up logging through `Settings`, which validates the values as every service does (exit 2).
        func bootstrap() throws {
            let flags = [logLevel.map { ["--log-level", $0] }, logFormat.map { ["--log-format", $0] }].compactMap { $0 }.flatMap { $0 }
            try SettingsOptions.read(flags: flags) { _ in }
        }
    }

    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "serve", abstract: "Start every service on the default ports (Ctrl-C stops).")
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            try logging.bootstrap()
            try await SuiteLauncher.serve(environment: ProcessInfo.processInfo.environment)
        }
    }

    struct Healthcheck: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "healthcheck",
            abstract: "Ask every service's management listener whether it is ready (or live); exit 0 if all are, 1 if not."
        )
        @OptionGroup var options: HealthcheckOptions

        func run() async throws {
            let outcome: HealthProbe.Outcome
            do {
                outcome = try await SuiteHealthcheck.run(environment: ProcessInfo.processInfo.environment, options: options)
            } catch let error as ConfigurationError {
                // Exit 1, not 2, as the services' healthcheck: Docker reserves 2 in health checks.
                FileHandle.standardError.write(Data("exposure-suite healthcheck: \(error.description)\n".utf8))
                throw ExitCode.failure
            }
            guard outcome.healthy else {
                FileHandle.standardError.write(Data("suite: not \(options.state): \(outcome.message)\n".utf8))
                throw ExitCode.failure
            }
            print("suite: \(options.state): \(outcome.message)")
        }
    }

    /// For a trial of the separate services (the compose file): the keys the suite makes for itself, in a folder of
    /// their own, since no service makes one. Never for production: a health authority's keys come from its secret
    /// store, the export-signing key registered with Apple and Google.
    struct DevelopmentKeys: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "development-keys",
            abstract: "Make the portal's and submission's development keys in a folder where missing (mode 0600), and the portal key's public half; print the file names, never a key."
        )
        @Argument(help: "The folder (made 0700 when missing).") var directory: String

        func run() throws {
            let made = try SuiteDevelopmentKeys.create(in: directory)
            for (variable, path) in made.variables.sorted(by: { $0.key < $1.key }) { print("\(variable)=\(path)") }
            print("The portal key's public half, for verification's JWT_PUBLIC_KEY_FILES: \(made.portalPublicKey)")
        }
    }

    struct Demo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "demo",
            abstract: "Run the whole story over HTTP (against the running suite, or one started for the demo); exit 0 only if every step held."
        )
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            try logging.bootstrap()
            do {
                try await SuiteLauncher.demo(environment: ProcessInfo.processInfo.environment)
            } catch let failure as DemoFailure {
                print("\nThe demo stopped: \(failure.description)")
                throw ExitCode.failure
            }
        }
    }
}
