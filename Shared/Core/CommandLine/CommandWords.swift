import ArgumentParser

extension ParsableCommand {
    /// The command `words` name (without the program name), parsed with this command as the root the way the
    /// executable would, for callers in the same process (the all-in-one launcher, tests) that then run it their
    /// own way, as an `Action`.
    ///
    /// Wrong words are a `UsageError` with argument-parser's message, as they would exit 64 from the executable;
    /// so are setting flags, which such a caller has no `Settings` to give to.
    public static func parse<Action>(words: [String], as action: Action.Type) throws(UsageError) -> Action {
        let command: any ParsableCommand
        do {
            command = try parseAsRoot(words)
        } catch {
            throw UsageError(message(for: error))
        }
        guard let action = command as? Action else {
            let names = configuration.subcommands.compactMap { $0.configuration.commandName }
            throw UsageError("missing subcommand: one of \(names.joined(separator: ", "))")
        }
        if let withSettings = command as? any SettingsCommand, let flag = withSettings.settings.flags.first {
            throw UsageError("unknown option '\(flag)'")
        }
        return action
    }
}
