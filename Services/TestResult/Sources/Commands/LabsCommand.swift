import ArgumentParser
import ExposureCore
import Logging

/// A `labs` subcommand: works on the lab credentials of the configured database.
protocol LabsAction: AsyncParsableCommand, SettingsCommand {
    func output(store: LabCredentialStore, configuration: TestResultConfiguration, environment: ServiceEnvironment) async throws -> String
}

extension LabsAction {
    func run() async throws {
        let configuration = try settings.read { try TestResultConfiguration($0) }
        let environment = ServiceEnvironment(logger: Logger(label: "exposure.testresult"))
        print(try await TestResultAdmin.withStore(configuration, environment: environment) {
            try await output(store: $0, configuration: configuration, environment: environment)
        })
    }
}

/// `testresult-service labs add|add-cert|list|revoke`: lab credentials.
struct LabsCommand: SubcommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "labs",
        abstract: "Manage lab credentials.",
        subcommands: [Add.self, AddCert.self, List.self, Revoke.self]
    )

    struct Add: LabsAction {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Create an API key for a lab and print it (once; only its SHA-256 is stored).")
        @Argument(help: "1 to 64 letters, digits, '-', '_' or '.'.") var labId: String
        @OptionGroup var settings: SettingsOptions

        func output(store: LabCredentialStore, configuration: TestResultConfiguration, environment: ServiceEnvironment) async throws -> String {
            try await TestResultAdmin.add(labId, store: store, environment: environment)
        }
    }

    struct AddCert: LabsAction {
        static let configuration = CommandConfiguration(
            commandName: "add-cert",
            abstract: "Register a TLS client certificate for a lab (used once the lab listener has TLS_CERT_FILE and TLS_KEY_FILE)."
        )
        @Argument(help: "1 to 64 letters, digits, '-', '_' or '.'.") var labId: String
        @Argument(help: "A PEM certificate file, or its SHA-256 fingerprint (64 hex digits, colons allowed).") var certificate: String
        @OptionGroup var settings: SettingsOptions

        func output(store: LabCredentialStore, configuration: TestResultConfiguration, environment: ServiceEnvironment) async throws -> String {
            try await TestResultAdmin.addCertificate(labId, certificate, store: store, configuration: configuration, environment: environment)
        }
    }

    struct List: LabsAction {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the credentials: lab, kind and fingerprint, created, state.")
        @OptionGroup var output: ListOutputOptions
        @OptionGroup var settings: SettingsOptions

        func output(store: LabCredentialStore, configuration: TestResultConfiguration, environment: ServiceEnvironment) async throws -> String {
            try await TestResultAdmin.list(store: store, output: output)
        }
    }

    struct Revoke: LabsAction {
        static let configuration = CommandConfiguration(
            commandName: "revoke",
            abstract: "Revoke one credential of a lab (--credential), or every key and certificate of it."
        )
        @Argument var labId: String
        @Option(help: "The fingerprint `labs list` shows (at least 8 of its characters): only that credential is revoked.")
        var credential: String?
        @OptionGroup var settings: SettingsOptions

        func output(store: LabCredentialStore, configuration: TestResultConfiguration, environment: ServiceEnvironment) async throws -> String {
            if let credential {
                return try await TestResultAdmin.revoke(labId, credential: credential, store: store, environment: environment)
            }
            return try await TestResultAdmin.revoke(labId, store: store, environment: environment)
        }
    }
}
