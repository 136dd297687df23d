import ArgumentParser

/// A command that only groups subcommands (`labs`, `users`): named alone it is a usage error (exit 64), as it was
/// before argument-parser, rather than argument-parser's help with exit 0, so that a script that lost its
/// subcommand fails.
public protocol SubcommandGroup: ParsableCommand {}

extension SubcommandGroup {
    public func run() throws {
        let names = Self.configuration.subcommands.compactMap { $0.configuration.commandName }
        throw ValidationError("Missing subcommand: one of \(names.joined(separator: ", ")).")
    }
}
