import ArgumentParser
import ExposureCore
import ExposureStatistics
import Foundation
import Logging
import VerificationDomain

/// An `issuers` subcommand: works on the code issuers of the configured database.
protocol IssuersAction: AsyncParsableCommand, SettingsCommand {
    func output(store: IssuerStore, configuration: VerificationConfiguration, environment: ServiceEnvironment) async throws -> String
}

extension IssuersAction {
    func run() async throws {
        let configuration = try settings.read { try VerificationConfiguration($0) }
        let environment = ServiceEnvironment(logger: Logger(label: "exposure.verification"))
        print(try await VerificationAdmin.withStore(configuration, environment: environment) {
            try await output(store: $0, configuration: configuration, environment: environment)
        })
    }
}

/// `verification-service issuers add|list|remove`: the health-authority systems that issue one-time codes on the
/// issuer listener.
struct IssuersCommand: SubcommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "issuers",
        abstract: "Manage the systems that issue one-time codes of other app families (CovidShield, ProteGO).",
        subcommands: [Add.self, List.self, Remove.self]
    )

    struct Add: IssuersAction {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Create an issuer and print its token (once; only its SHA-256 is stored)."
        )
        @Option(help: "1 to 64 letters, digits, '-', '_' or '.'.") var name: String
        @Option(help: "covidshield or protego.") var kind: String
        @Option(help: "The region its codes are for (default: COVIDSHIELD_REGION or PROTEGO_REGION).") var region: String?
        @Option(help: "The health authority it issues for (see `authorities list`).") var authority: String = Authority.defaultID
        @Option(help: "The last day (YYYY-MM-DD, UTC) its token works; without it, until it is removed.") var lastDay: String?
        @OptionGroup var settings: SettingsOptions

        /// Wrong words are refused before the database is opened.
        func validate() throws {
            guard CodeIssuer.isValidName(name) else { throw ValidationError("--name has 1 to 64 letters, digits, '-', '_' or '.'") }
            guard OneTimeCodeKind(rawValue: kind.uppercased()) != nil else { throw ValidationError("--kind is covidshield or protego, got '\(kind)'") }
            if let region, !OneTimeCodeRegions.isValid(region) { throw ValidationError("--region has 1 to 16 letters, digits, '_' or '-'") }
            guard AuthorityID.isWellFormed(authority) else { throw ValidationError("--authority is an authority's id (a-z, 0-9 and '-'), got '\(authority)'") }
            if let lastDay, StatisticsDay(lastDay) == nil { throw ValidationError("--last-day is a day as YYYY-MM-DD, got '\(lastDay)'") }
        }

        func output(store: IssuerStore, configuration: VerificationConfiguration, environment: ServiceEnvironment) async throws -> String {
            try await VerificationAdmin.add(
                name: name, kind: kind, region: region, authority: authority, lastDay: lastDay.flatMap(StatisticsDay.init), store: store,
                configuration: configuration, environment: environment
            )
        }
    }

    struct List: IssuersAction {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the issuers: name, kind, region, health authority, token fingerprint, created, expires, last used."
        )
        @OptionGroup var output: ListOutputOptions
        @OptionGroup var settings: SettingsOptions

        func output(store: IssuerStore, configuration: VerificationConfiguration, environment: ServiceEnvironment) async throws -> String {
            try await VerificationAdmin.list(store: store, output: output)
        }
    }

    struct Remove: IssuersAction {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove an issuer: its token stops working at once; codes it issued live out their time."
        )
        @Option var name: String
        @OptionGroup var settings: SettingsOptions

        func output(store: IssuerStore, configuration: VerificationConfiguration, environment: ServiceEnvironment) async throws -> String {
            try await store.remove(name: name) ? "Removed issuer \(name)." : "No issuer \(name)."
        }
    }
}

/// `issuers list --json`: `{"issuers": [{"name", "kind", "region", "authority", "fingerprint", "createdAt", "createdBy",
/// "expiresAt", "lastUsed"}]}`, the rows of the table.
struct IssuerList: Encodable {
    struct Issuer: Encodable {
        let name: String
        /// `covidshield` or `protego`, as `issuers add --kind` takes it.
        let kind: String
        let region: String
        /// The health authority it issues for.
        let authority: String
        /// The first characters of the stored hash of its token (the table adds `…`).
        let fingerprint: String
        let createdAt: String
        /// The officer who created it in the portal; null for one added here.
        let createdBy: JSONNullable<String>
        /// When its token stops working; null for never.
        let expiresAt: JSONNullable<String>
        /// The last day (UTC) its token was used; null for never.
        let lastUsed: JSONNullable<String>

        init(_ summary: IssuerSummary) {
            name = summary.issuer.name
            kind = summary.issuer.kind.rawValue.lowercased()
            region = summary.issuer.region
            authority = summary.issuer.authority
            fingerprint = summary.fingerprint
            createdAt = Date.iso8601(summary.createdAt)
            createdBy = JSONNullable(summary.createdBy)
            expiresAt = JSONNullable(summary.expiresAt.map(Date.iso8601))
            lastUsed = JSONNullable(summary.lastUsedDay.map { StatisticsDay(number: $0).description })
        }
    }

    let issuers: [Issuer]
}
