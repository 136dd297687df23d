import ArgumentParser
import Foundation

/// The service settings on a command line (`--database-url x` for `DATABASE_URL`), handed to `Settings`, which reads
/// them over the environment variables.
///
/// argument-parser leaves here every word a command does not declare itself. The settings are not declared as
/// options one by one because a service reads some forty, each named once where its configuration reads it
/// (`Settings.int("PORT", …)`); a second list would drift from the first. Instead argument-parser checks the
/// command's own words and `read(_:)` checks these: every flag given must be a setting the configuration read, so
/// a misspelt or foreign flag is a usage error (exit 64) before the command does anything, never ignored.
public struct SettingsOptions: ParsableArguments, Sendable {
    @Argument(
        parsing: .allUnrecognized,
        help: ArgumentHelp(
            "Service settings, each an environment variable or its flag: --database-url <url> for DATABASE_URL (the flag wins). See docs/operations.md.",
            valueName: "--setting value"
        )
    )
    public var flags: [String] = []

    public init() {}

    public func validate() throws {
        _ = try Self.variables(in: flags)
    }

    /// The variables `flags` name (`--database-url` or `--database-url=x` is `DATABASE_URL`), in order.
    ///
    /// A flag takes the word after it as its value (`--database-url x`), or none (a switch, `--trusted-proxy`); no
    /// setting takes several words. Any other word is an argument the command does not take: a stray word, or a
    /// command named after the settings (`portal-service --database-url x users list`, which would otherwise
    /// reach the default `serve` with `users` and `list` as values).
    public static func variables(in flags: [String]) throws(ValidationError) -> [String] {
        var variables: [String] = []
        var takesValue = false
        for word in flags {
            if word.hasPrefix("--") {
                let name = word.dropFirst(2).prefix { $0 != "=" }
                variables.append(name.uppercased().replacingOccurrences(of: "-", with: "_"))
                takesValue = !word.contains("=")
            } else if takesValue {
                takesValue = false
            } else {
                throw ValidationError(word.hasPrefix("-") ? "Unknown option '\(word)'." : "Unexpected argument '\(word)'.")
            }
        }
        return variables
    }

    /// Reads a configuration with `make` from these flags over `environment`, and checks that it read every flag.
    ///
    /// An invalid value throws `make`'s `ConfigurationError` (exit code 2); a flag that no setting of this command
    /// matches throws a `ValidationError` (exit code 64). Both happen before the command touches anything. With
    /// `setUpLogging` (what a command wants; a test in a shared process does not), logging and metrics are set up
    /// first from `LOG_LEVEL` and `LOG_FORMAT`, which every configuration reads as `CommonSettings`.
    public func read<Configuration>(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        setUpLogging: Bool = true,
        _ make: (Settings) throws -> Configuration
    ) throws -> Configuration {
        try Self.read(flags: flags, environment: environment, setUpLogging: setUpLogging, make)
    }

    /// `read` for flags that did not come from argument-parser (whose property wrappers hold a value only once
    /// parsed): the suite's declared `--log-level`, tests.
    public static func read<Configuration>(
        flags: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment,
        setUpLogging: Bool = true,
        _ make: (Settings) throws -> Configuration
    ) throws -> Configuration {
        let log = SettingsReadLog()
        let settings = Settings(arguments: ["settings"] + flags, environment: environment, readLog: log)
        let common = try CommonSettings(settings, defaultDatabase: "sqlite::memory:")
        if setUpLogging {
            Observability.bootstrapLogging(level: common.logLevel, format: common.logFormat)
            Observability.bootstrapMetrics()
        }
        let configuration = try make(settings)
        let read = log.read
        let unread = try Self.variables(in: flags).filter { !read.contains($0) }
        guard unread.isEmpty else {
            let names = unread.map { "'--\($0.lowercased().replacingOccurrences(of: "_", with: "-"))'" }
            throw ValidationError("Unknown option\(names.count == 1 ? "" : "s") \(names.joined(separator: ", ")): not a setting this command reads (docs/operations.md lists them).")
        }
        return configuration
    }
}
