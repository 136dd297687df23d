import ArgumentParser
import ExposureCore

/// `portal-service users add|list|disable|enable|set-password|reset-2fa`: local officer accounts.
struct UsersCommand: SubcommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Manage local officer accounts.",
        subcommands: [Add.self, List.self, Disable.self, Enable.self, SetPassword.self, ResetTwoFactor.self]
    )

    /// The subcommand `words` name (`["add", "anna", "--roles", "c19hotline"]`).
    static func action(_ words: [String]) throws -> any PortalAdminCommand {
        try parse(words: words, as: (any PortalAdminCommand).self)
    }

    struct Add: PortalAdminCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add an account. The password is read from standard input (asked twice at a terminal); when none is given, one is generated and shown once."
        )
        @Argument(help: "1 to 64 letters, digits, '.', '_', '@' or '-'.") var name: String
        @Option(help: "Comma-separated: c19hotline (TEST teleTANs), c19hotline_event (EVENT teleTANs), c19supervisor (administers its authority's officers, reads its statistics and audit log), or c19sysadmin alone (a system administrator: creates and disables health authorities, reads the national figures).") var roles: String
        @Option(help: "The health authority the account belongs to (default: default); not for a system administrator.") var authority: String?
        @OptionGroup var settings: SettingsOptions

        func output(in context: PortalAdmin.Context) async throws -> String {
            try await PortalAdmin.addUser(name, roles: roles, authority: authority, in: context)
        }
    }

    struct List: PortalAdminCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the accounts: name, health authority, roles, created, state.")
        @Option(help: "Only this health authority's accounts.") var authority: String?
        @OptionGroup var output: ListOutputOptions
        @OptionGroup var settings: SettingsOptions

        func output(in context: PortalAdmin.Context) async throws -> String {
            try await PortalAdmin.listUsers(authority: authority, in: context, output: output)
        }
    }

    struct Disable: PortalAdminCommand {
        static let configuration = CommandConfiguration(commandName: "disable", abstract: "Disable an account and end its sessions.")
        @Argument var name: String
        @OptionGroup var settings: SettingsOptions

        func output(in context: PortalAdmin.Context) async throws -> String {
            try await PortalAdmin.setDisabled(name, true, in: context)
        }
    }

    struct Enable: PortalAdminCommand {
        static let configuration = CommandConfiguration(commandName: "enable", abstract: "Enable an account again; its sign-in attempts count from zero.")
        @Argument var name: String
        @OptionGroup var settings: SettingsOptions

        func output(in context: PortalAdmin.Context) async throws -> String {
            try await PortalAdmin.setDisabled(name, false, in: context)
        }
    }

    struct SetPassword: PortalAdminCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-password",
            abstract: "Set a new password (from standard input, or generated and shown once) and end the account's sessions."
        )
        @Argument var name: String
        @OptionGroup var settings: SettingsOptions

        func output(in context: PortalAdmin.Context) async throws -> String {
            try await PortalAdmin.setPassword(name, in: context)
        }
    }

    struct ResetTwoFactor: PortalAdminCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-2fa",
            abstract: "Remove an account's two-factor sign-in (a lost phone and no recovery code left) and end its sessions; it is set up again at the next sign-in."
        )
        @Argument var name: String
        @OptionGroup var settings: SettingsOptions

        func output(in context: PortalAdmin.Context) async throws -> String {
            try await PortalAdmin.resetTwoFactor(name, in: context)
        }
    }
}
