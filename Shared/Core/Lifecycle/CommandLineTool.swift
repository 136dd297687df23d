import Foundation
import Logging

/// The shared front door of every executable: `<tool> [command] [flags]`.
///
/// It sets up logging and metrics once, runs the chosen command, and turns a `ConfigurationError` into a
/// single line on standard error and exit code 2, so a bad deployment fails loudly at start-up.
public struct CommandLineTool: Sendable {
    public struct Command: Sendable {
        public let name: String
        public let summary: String
        public let run: @Sendable (_ arguments: [String], _ settings: Settings) async throws -> Void

        public init(_ name: String, summary: String, run: @escaping @Sendable (_ arguments: [String], _ settings: Settings) async throws -> Void) {
            self.name = name
            self.summary = summary
            self.run = run
        }
    }

    public let tool: String
    public let summary: String
    public let commands: [Command]
    public let defaultCommand: String

    public init(tool: String, summary: String, defaultCommand: String = "serve", commands: [Command]) {
        self.tool = tool
        self.summary = summary
        self.defaultCommand = defaultCommand
        self.commands = commands
    }

    /// Runs the command named by the first argument (or the default one) and exits the process.
    public func main(arguments: [String] = CommandLine.arguments, environment: [String: String] = ProcessInfo.processInfo.environment) async -> Never {
        var rest = Array(arguments.dropFirst())
        if rest.first == "--help" || rest.first == "-h" || rest.first == "help" {
            print(usage)
            exit(0)
        }
        let name: String
        if let first = rest.first, !first.hasPrefix("-") {
            name = first
            rest.removeFirst()
        } else {
            name = defaultCommand
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            FileHandle.standardError.write(Data("\(tool): unknown command '\(name)'\n\n\(usage)\n".utf8))
            exit(64)
        }
        // Flags (`--database-url x`) are read by `Settings` from the same list; positional words go to the command.
        let settings = Settings(arguments: [arguments.first ?? tool] + rest, environment: environment)
        do {
            let common = try CommonSettings(settings, defaultDatabase: "sqlite::memory:")
            Observability.bootstrapLogging(level: common.logLevel, format: common.logFormat)
            Observability.bootstrapMetrics()
            try await command.run(rest, settings)
            fflush(nil)
            exit(0)
        } catch let error as ConfigurationError {
            fflush(nil)
            FileHandle.standardError.write(Data("\(tool): \(error.description)\n".utf8))
            exit(2)
        } catch let error as UsageError {
            fflush(nil)
            FileHandle.standardError.write(Data("\(tool) \(name): \(error.message)\n".utf8))
            exit(64)
        } catch {
            fflush(nil)
            FileHandle.standardError.write(Data("\(tool) \(name): \(String(describing: error))\n".utf8))
            exit(1)
        }
    }

    public var usage: String {
        let width = commands.map(\.name.count).max() ?? 0
        let lines = commands.map { "  \($0.name.padding(toLength: width, withPad: " ", startingAt: 0))  \($0.summary)" }
        return """
            \(tool): \(summary)

            usage: \(tool) [command] [--flag value ...]   (default command: \(defaultCommand))
            commands:
            \(lines.joined(separator: "\n"))

            Every setting is an environment variable (DATABASE_URL) or a flag (--database-url); see docs/operations.md.
            """
    }
}

/// A command used with the wrong words; answered with exit code 64 and the message.
public struct UsageError: Error, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Positional words of a command, as `[String]`, with helpers to take them in order.
extension Array where Element == String {
    /// Positional arguments only (flags and their values removed).
    public var positional: [String] {
        var result: [String] = []
        var skipNext = false
        for word in self {
            if skipNext { skipNext = false; continue }
            if word.hasPrefix("--") {
                if !word.contains("=") { skipNext = true }
                continue
            }
            result.append(word)
        }
        return result
    }

    /// The value of a flag, `--name value` or `--name=value` (the last one given), or nil when it is absent. Commands
    /// read their own flags from their words, not from `Settings`, so that an environment variable of the same name
    /// (`LIMIT`, `ROLES`) cannot change what a command does.
    public func flag(_ name: String) -> String? {
        var value: String?
        for (index, word) in enumerated() {
            if word == "--\(name)", index + 1 < count { value = self[index + 1] }
            if word.hasPrefix("--\(name)=") { value = String(word.dropFirst(name.count + 3)) }
        }
        return value
    }
}

extension CommandLineTool.Command {
    /// `serve`: reads the service's configuration, builds its bundle (which migrates the database) and runs it until
    /// SIGTERM or SIGINT.
    public static func serve<Configuration: Sendable>(
        service: String,
        summary: String,
        configuration: @escaping @Sendable (Settings) throws -> Configuration,
        bundle: @escaping @Sendable (Configuration, ServiceEnvironment) async throws -> ServiceBundle
    ) -> Self {
        .init("serve", summary: summary) { _, settings in
            let configuration = try configuration(settings)
            let logger = Logger(label: "exposure.\(service)")
            try await ServiceRunner.run([try await bundle(configuration, ServiceEnvironment(logger: logger))], logger: logger)
        }
    }

    /// `migrate`: applies the service's migrations and exits.
    public static func migrate<Configuration: Sendable>(
        service: String,
        configuration: @escaping @Sendable (Settings) throws -> Configuration,
        migrate: @escaping @Sendable (Configuration, ServiceEnvironment) async throws -> Void
    ) -> Self {
        .init("migrate", summary: "apply database migrations and exit") { _, settings in
            try await migrate(try configuration(settings), ServiceEnvironment(logger: Logger(label: "exposure.\(service)")))
        }
    }
}
