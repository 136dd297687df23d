import ArgumentParser
import ExposureCore
import Foundation
import Logging
import VerificationDomain
import VerificationENX

/// An `enx-keys` subcommand: works on the ENX family's API keys in the configured database.
protocol ENXKeysAction: AsyncParsableCommand, SettingsCommand {
    func output(store: ENXAPIKeyStore, environment: ServiceEnvironment) async throws -> String
}

extension ENXKeysAction {
    func run() async throws {
        let configuration = try settings.read { try VerificationConfiguration($0) }
        let environment = ServiceEnvironment(logger: Logger(label: "exposure.verification"))
        print(try await VerificationAdmin.withDatabase(configuration, environment: environment) {
            try await output(store: ENXAPIKeyStore(database: $0), environment: environment)
        })
    }
}

/// `verification-service enx-keys add|list|remove`: the `X-API-Key`s of the ENX family (docs/enx.md). An admin key is
/// a health authority's system issuing codes on the issuer listener; a device key goes into the authority's ENX
/// configuration (or its app) for `/api/verify` and `/api/certificate`.
struct ENXKeysCommand: SubcommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "enx-keys",
        abstract: "Manage the ENX family's API keys (admin: issue codes; device: verify codes and get certificates).",
        subcommands: [Add.self, List.self, Remove.self]
    )

    struct Add: ENXKeysAction {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Create a key and print it (once; only its SHA-256 is stored).")
        @Option(help: "1 to 64 letters, digits, '-', '_' or '.'.") var name: String
        @Option(help: "admin or device.") var role: String
        @Option(help: "The health authority it belongs to (see `authorities list`).") var authority: String = Authority.defaultID
        @OptionGroup var settings: SettingsOptions

        /// Wrong words are refused before the database is opened.
        func validate() throws {
            guard CodeIssuer.isValidName(name) else { throw ValidationError("--name has 1 to 64 letters, digits, '-', '_' or '.'") }
            guard ENXAPIKey.Role(rawValue: role) != nil else { throw ValidationError("--role is admin or device, got '\(role)'") }
            guard AuthorityID.isWellFormed(authority) else { throw ValidationError("--authority is an authority's id (a-z, 0-9 and '-'), got '\(authority)'") }
        }

        func output(store: ENXAPIKeyStore, environment: ServiceEnvironment) async throws -> String {
            let key = ENXAPIKey(name: name, authority: authority, role: ENXAPIKey.Role(rawValue: role) ?? .device)
            do {
                let secret = try await store.add(key, now: environment.clock.now().epochSeconds, createdBy: nil, random: environment.random)
                return "Created ENX \(role) key \(name) of authority \(authority). Its key, shown only now:\n\(secret)"
            } catch is ENXAPIKeyStore.NameTaken {
                throw UsageError("an ENX key named \(name) exists")
            }
        }
    }

    struct List: ENXKeysAction {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the keys: name, role, authority, fingerprint, created.")
        @OptionGroup var output: ListOutputOptions
        @OptionGroup var settings: SettingsOptions

        struct Document: Encodable {
            struct Key: Encodable {
                let name: String
                let role: String
                let authority: String
                let fingerprint: String
                let createdAt: String
            }

            let keys: [Key]
        }

        func output(store: ENXAPIKeyStore, environment: ServiceEnvironment) async throws -> String {
            let keys = try await store.list().map {
                Document.Key(name: $0.key.name, role: $0.key.role.rawValue, authority: $0.key.authority, fingerprint: $0.fingerprint, createdAt: Date.iso8601($0.createdAt))
            }
            return try output.render(Document(keys: keys)) {
                keys.isEmpty ? "No ENX keys." : keys.map { "\($0.name)\t\($0.role)\t\($0.authority)\t\($0.fingerprint)…\t\($0.createdAt)" }.joined(separator: "\n")
            }
        }
    }

    struct Remove: ENXKeysAction {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a key: it stops working at once.")
        @Option var name: String
        @OptionGroup var settings: SettingsOptions

        func output(store: ENXAPIKeyStore, environment: ServiceEnvironment) async throws -> String {
            try await store.remove(name: name) ? "Removed ENX key \(name)." : "No ENX key \(name)."
        }
    }
}
