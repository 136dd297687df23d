import ArgumentParser
import Foundation

/// The front door of every executable: parses the command line with the executable's root command, runs the chosen
/// command and exits with the code operators and scripts rely on.
///
/// | exit | when |
/// |---|---|
/// | 0 | success, `--help`, `--version` |
/// | 2 | a setting is invalid (`ConfigurationError`): one line `<tool>: invalid configuration: VAR …` on stderr |
/// | 64 | wrong words: an unknown command, option or setting flag, a missing argument (`UsageError`, argument-parser's) |
/// | 1 | anything else, or what the command chose with `ExitCode` |
public enum CommandLineMain {
    /// Runs `root` on `arguments` (without the program name) and exits the process.
    public static func run<Root: ParsableCommand>(_ root: Root.Type, arguments: [String] = Array(CommandLine.arguments.dropFirst())) async -> Never {
        // Before anything is created: databases, keys and credentials are for this user alone. What must be public
        // (the export tree a CDN serves) is given its mode explicitly.
        umask(privateUmask)
        let command: any ParsableCommand
        do {
            command = try root.parseAsRoot(arguments)
        } catch {
            // Help, version and the parser's own errors, with argument-parser's messages and exit codes.
            root.exit(withError: error)
        }
        do {
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                var synchronous = command
                try synchronous.run()
            }
            fflush(nil)
            exit(0)
        } catch {
            fflush(nil)
            let tool = root.configuration.commandName ?? "\(root)"
            let name = type(of: command).configuration.commandName.map { "\(tool) \($0)" } ?? tool
            switch error {
            case let error as ConfigurationError:
                FileHandle.standardError.write(Data("\(tool): \(error.description)\n".utf8))
            case let error as UsageError:
                FileHandle.standardError.write(Data("\(name): \(error.message)\n".utf8))
            case let error as ValidationError:
                // A setting flag nothing read, or a command group without its subcommand.
                FileHandle.standardError.write(Data("\(name): \(error.message)\nSee '\(name) --help'.\n".utf8))
            case is CleanExit, is ExitCode:
                root.exit(withError: error)
            case _ where String(reflecting: type(of: error)).hasPrefix("ArgumentParser."):
                // argument-parser's own, thrown while running: `help <command>` answers with its help request.
                root.exit(withError: error)
            default:
                FileHandle.standardError.write(Data("\(name): \(String(describing: error))\n".utf8))
            }
            exit(exitCode(for: error))
        }
    }

    /// The file mode creation mask of every executable: nothing it creates is open to its group or to others.
    public static let privateUmask: mode_t = 0o077

    /// The exit code for an error thrown by a command (see the table above).
    public static func exitCode(for error: any Error) -> Int32 {
        switch error {
        case is ConfigurationError: 2
        case is UsageError, is ValidationError: 64
        case let code as ExitCode: code.rawValue
        default: 1
        }
    }
}
