import ArgumentParser
import ExposureCore
import Foundation
import Logging
import VerificationDomain

/// An `authorities` subcommand: works on the health authorities of the configured database.
protocol AuthoritiesAction: AsyncParsableCommand, SettingsCommand {
    func output(store: AuthorityStore, environment: ServiceEnvironment) async throws -> String
}

extension AuthoritiesAction {
    func run() async throws {
        let configuration = try settings.read { try VerificationConfiguration($0) }
        let environment = ServiceEnvironment(logger: Logger(label: "exposure.verification"))
        print(try await VerificationAdmin.withDatabase(configuration, environment: environment) {
            try await output(store: AuthorityStore(database: $0), environment: environment)
        })
    }
}

extension AuthoritiesAction {
    /// `disable` and `enable`: the switch of authority `id`, or a usage error for one that does not exist.
    func setDisabled(_ disabled: Bool, id: String, store: AuthorityStore, environment: ServiceEnvironment) async throws -> String {
        guard try await store.setDisabled(id: id, disabled, now: environment.clock.now()) != nil else { throw UsageError("no health authority \(id)") }
        return "Health authority \(id) \(disabled ? "disabled" : "enabled")."
    }
}

extension AuthoritiesAction {
    /// `--families` of `add` and `set`: a comma list of families.
    func authorityFamilies(_ text: String) throws -> Set<AppFamily> {
        guard let parsed = AppFamily.parseList(text) else {
            throw ValidationError("--families is a comma list of cwa, covidshield and protego, got '\(text)'")
        }
        return parsed
    }

    /// `--regions` of `add` and `set`: a comma list, blanks around each region ignored; empty for every region.
    func authorityRegions(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }
}

/// `verification-service authorities list|add|set|disable|enable`: the health authorities, for operators without the
/// portal (which changes them through `/version/v1/authorities`).
struct AuthoritiesCommand: SubcommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "authorities",
        abstract: "Manage the health authorities: their officers' and issuers' families, regions and limits.",
        subcommands: [List.self, Add.self, Change.self, Disable.self, Enable.self]
    )

    struct List: AuthoritiesAction {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the authorities: id, name, families, regions, limits per hour and day (officers' and each issuer key's), state."
        )
        @OptionGroup var output: ListOutputOptions
        @OptionGroup var settings: SettingsOptions

        func output(store: AuthorityStore, environment: ServiceEnvironment) async throws -> String {
            let rows = try await store.list().map(AuthorityList.Authority.init)
            return try output.render(AuthorityList(authorities: rows)) {
                let lines = rows.map { row in
                    let limit = { (value: Int?) in value.map(String.init) ?? "-" }
                    return [
                        row.id, row.name, row.families.joined(separator: ","), row.regions.isEmpty ? "all" : row.regions.joined(separator: ","),
                        limit(row.teleTansPerHour), limit(row.teleTansPerDay), limit(row.issuerCodesPerHour), limit(row.issuerCodesPerDay),
                        row.disabled ? "disabled" : "enabled",
                    ].joined(separator: "\t")
                }
                let header = "AUTHORITY\tNAME\tFAMILIES\tREGIONS\tPER HOUR\tPER DAY\tPER KEY HOUR\tPER KEY DAY\tSTATE"
                return ([header] + lines).joined(separator: "\n")
            }
        }
    }

    struct Add: AuthoritiesAction {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Create a health authority.")
        @Option(help: "1 to 32 of a-z, 0-9 and '-', not starting with '-'; never changes.") var id: String
        @Option(help: "1 to 100 characters.") var name: String
        @Option(help: "Comma list of cwa, covidshield, protego.") var families = AppFamily.allCases.map(\.rawValue).joined(separator: ",")
        @Option(help: "Comma list of the regions its codes may be issued for (default: every region).") var regions = ""
        @Option(name: .customLong("per-hour"), help: "teleTANs and codes its officers may issue together in a clock hour (default: no limit of its own).")
        var perHour: Int?
        @Option(name: .customLong("per-day"), help: "The same per UTC day.") var perDay: Int?
        @Option(help: "Codes each of its issuer keys may issue in a clock hour, below ISSUER_CODES_PER_HOUR (default: that).")
        var issuerCodesPerHour: Int?
        @Option(help: "The same per UTC day, below ISSUER_CODES_PER_DAY.") var issuerCodesPerDay: Int?
        @OptionGroup var settings: SettingsOptions

        /// Wrong words are refused before the database is opened.
        func validate() throws {
            _ = try authoritySettings()
        }

        func authoritySettings() throws -> AuthoritySettings {
            guard AuthorityID.isWellFormed(id) else { throw ValidationError("--id has 1 to 32 of a-z, 0-9 and '-', not starting with '-', got '\(id)'") }
            let settings = AuthoritySettings(
                name: name, regions: authorityRegions(regions), families: try authorityFamilies(families),
                teleTANsPerHour: perHour, teleTANsPerDay: perDay, issuerCodesPerHour: issuerCodesPerHour, issuerCodesPerDay: issuerCodesPerDay
            )
            if let problem = settings.problem { throw ValidationError(problem) }
            return settings
        }

        func output(store: AuthorityStore, environment: ServiceEnvironment) async throws -> String {
            guard try await store.create(id: id, settings: try authoritySettings(), now: environment.clock.now()) != nil else {
                throw UsageError("a health authority \(id) exists")
            }
            return "Health authority \(id) created. Its officers' tokens name it in the claim `authority`; add its issuers with `issuers add --authority \(id)`."
        }
    }

    /// `authorities set`: what the portal's Change settings form does, for operators without the portal.
    struct Change: AuthoritiesAction {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Change an authority: each setting given is replaced (a limit by a number, or 'none' for none of its own); the others stay."
        )
        @Option var id: String
        @Option(help: "1 to 100 characters.") var name: String?
        @Option(help: "Comma list of cwa, covidshield, protego.") var families: String?
        @Option(help: "Comma list of the regions its codes may be issued for ('' for every region).") var regions: String?
        @Option(name: .customLong("per-hour"), help: "teleTANs and codes its officers may issue together in a clock hour.") var perHour: String?
        @Option(name: .customLong("per-day"), help: "The same per UTC day.") var perDay: String?
        @Option(help: "Codes each of its issuer keys may issue in a clock hour, below ISSUER_CODES_PER_HOUR.") var issuerCodesPerHour: String?
        @Option(help: "The same per UTC day, below ISSUER_CODES_PER_DAY.") var issuerCodesPerDay: String?
        @OptionGroup var settings: SettingsOptions

        /// Wrong words are refused before the database is opened.
        func validate() throws {
            guard [name, families, regions, perHour, perDay, issuerCodesPerHour, issuerCodesPerDay].contains(where: { $0 != nil }) else {
                throw ValidationError("give at least one setting to change")
            }
            var probe = AuthoritySettings(name: "probe")
            try apply(to: &probe)
        }

        /// Replaces each setting given; "none" clears a limit.
        func apply(to settings: inout AuthoritySettings) throws {
            func limit(_ text: String?, _ option: String, current: Int?) throws -> Int? {
                guard let text else { return current }
                if text == "none" { return nil }
                guard let value = Int(text) else { throw ValidationError("--\(option) is a number or 'none', got '\(text)'") }
                return value
            }
            if let name { settings.name = name }
            if let families { settings.families = try authorityFamilies(families) }
            if let regions { settings.regions = authorityRegions(regions) }
            settings.teleTANsPerHour = try limit(perHour, "per-hour", current: settings.teleTANsPerHour)
            settings.teleTANsPerDay = try limit(perDay, "per-day", current: settings.teleTANsPerDay)
            settings.issuerCodesPerHour = try limit(issuerCodesPerHour, "issuer-codes-per-hour", current: settings.issuerCodesPerHour)
            settings.issuerCodesPerDay = try limit(issuerCodesPerDay, "issuer-codes-per-day", current: settings.issuerCodesPerDay)
            if let problem = settings.problem { throw ValidationError(problem) }
        }

        func output(store: AuthorityStore, environment: ServiceEnvironment) async throws -> String {
            guard var authority = try await store.authority(id: id) else { throw UsageError("no health authority \(id)") }
            try apply(to: &authority.settings)
            guard try await store.change(id: id, to: authority.settings, now: environment.clock.now()) != nil else {
                throw UsageError("no health authority \(id)")
            }
            return "Health authority \(id) changed; its limits count from the next issuance."
        }
    }

    struct Disable: AuthoritiesAction {
        static let configuration = CommandConfiguration(
            commandName: "disable", abstract: "Disable an authority: its officers and issuers issue nothing; its settings and history stay."
        )
        @Option var id: String
        @OptionGroup var settings: SettingsOptions

        func output(store: AuthorityStore, environment: ServiceEnvironment) async throws -> String {
            try await setDisabled(true, id: id, store: store, environment: environment)
        }
    }

    struct Enable: AuthoritiesAction {
        static let configuration = CommandConfiguration(commandName: "enable", abstract: "Enable a disabled authority again.")
        @Option var id: String
        @OptionGroup var settings: SettingsOptions

        func output(store: AuthorityStore, environment: ServiceEnvironment) async throws -> String {
            try await setDisabled(false, id: id, store: store, environment: environment)
        }
    }
}

/// `authorities list --json`: `{"authorities": [{"id", "name", "families", "regions", "teleTansPerHour", "teleTansPerDay",
/// "issuerCodesPerHour", "issuerCodesPerDay", "disabled", "createdAt"}]}`, the API's fields (`createdAt` as ISO 8601).
struct AuthorityList: Encodable {
    struct Authority: Encodable {
        let id: String
        let name: String
        let families: [String]
        /// Empty for every region.
        let regions: [String]
        let teleTansPerHour: Int?
        let teleTansPerDay: Int?
        let issuerCodesPerHour: Int?
        let issuerCodesPerDay: Int?
        let disabled: Bool
        let createdAt: String

        init(_ authority: VerificationDomain.Authority) {
            id = authority.id
            name = authority.settings.name
            families = authority.settings.families.sorted().map(\.rawValue)
            regions = authority.settings.regions
            teleTansPerHour = authority.settings.teleTANsPerHour
            teleTansPerDay = authority.settings.teleTANsPerDay
            issuerCodesPerHour = authority.settings.issuerCodesPerHour
            issuerCodesPerDay = authority.settings.issuerCodesPerDay
            disabled = authority.settings.disabled
            createdAt = Date.iso8601(authority.createdAt)
        }
    }

    let authorities: [Authority]
}
