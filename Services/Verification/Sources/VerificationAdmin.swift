import ExposureCore
import ExposureStatistics
import Foundation
import VerificationDomain
import VerificationENX

/// The operator's work on code issuers and health authorities, behind `verification-service issuers add|list|remove`
/// and `verification-service authorities list|add|disable|enable` (the command types are in Commands/). Each returns
/// what the command prints.
public enum VerificationAdmin {
    /// `issuers …` given as words (`["add", "--name", "ha-1", "--kind", "covidshield"]`), parsed as the executable
    /// parses them, against the configured database.
    public static func issuers(_ words: [String], configuration: VerificationConfiguration, environment: ServiceEnvironment) async throws -> String {
        let action = try IssuersCommand.parse(words: words, as: (any IssuersAction).self)
        return try await withStore(configuration, environment: environment) {
            try await action.output(store: $0, configuration: configuration, environment: environment)
        }
    }

    /// `authorities …` given as words (`["add", "--id", "ha-1", "--name", "HA 1"]`), parsed as the executable parses
    /// them, against the configured database.
    public static func authorities(_ words: [String], configuration: VerificationConfiguration, environment: ServiceEnvironment) async throws -> String {
        let action = try AuthoritiesCommand.parse(words: words, as: (any AuthoritiesAction).self)
        return try await withDatabase(configuration, environment: environment) {
            try await action.output(store: AuthorityStore(database: $0), environment: environment)
        }
    }

    /// Opens the configured database for one command and closes it again.
    /// `enx-keys …` given as words (`["add", "--name", "app", "--role", "device"]`), parsed as the executable parses
    /// them, against the configured database.
    public static func enxKeys(_ words: [String], configuration: VerificationConfiguration, environment: ServiceEnvironment) async throws -> String {
        let action = try ENXKeysCommand.parse(words: words, as: (any ENXKeysAction).self)
        return try await withDatabase(configuration, environment: environment) {
            try await action.output(store: ENXAPIKeyStore(database: $0), environment: environment)
        }
    }

    static func withDatabase<Output>(
        _ configuration: VerificationConfiguration,
        environment: ServiceEnvironment,
        _ body: (Database) async throws -> Output
    ) async throws -> Output {
        try await Database.withOpened(configuration.common, migrator: VerificationMigrations.migrator, environment: environment.named(VerificationService.name), body)
    }

    /// The same with the issuers' store.
    static func withStore<Output>(
        _ configuration: VerificationConfiguration,
        environment: ServiceEnvironment,
        _ body: (IssuerStore) async throws -> Output
    ) async throws -> Output {
        try await withDatabase(configuration, environment: environment) { try await body(IssuerStore(database: $0)) }
    }

    static func add(
        name: String, kind kindName: String, region: String?, authority: String, lastDay: StatisticsDay? = nil, store: IssuerStore,
        configuration: VerificationConfiguration, environment: ServiceEnvironment
    ) async throws -> String {
        guard CodeIssuer.isValidName(name) else { throw UsageError("an issuer's name has 1 to 64 letters, digits, '-', '_' or '.'") }
        guard let kind = OneTimeCodeKind(rawValue: kindName.uppercased()) else {
            throw UsageError("--kind is covidshield or protego, got '\(kindName)'")
        }
        let region = region ?? configuration.codeRegions.region(of: kind)
        guard OneTimeCodeRegions.isValid(region) else { throw UsageError("a region has 1 to 16 letters, digits, '_' or '-'") }
        guard try await AuthorityStore(database: store.database).authority(id: authority) != nil else {
            throw UsageError("there is no health authority \(authority); see `verification-service authorities list`")
        }
        let now = environment.clock.now()
        // The last day is worked through to its end (UTC), as the portal's issuer keys page takes it.
        let expiresAt = lastDay.map { Date(timeIntervalSince1970: TimeInterval(($0.number + 1) * 86400)) }
        if let expiresAt, expiresAt <= now { throw UsageError("--last-day has passed; give today or a later day") }
        let issuer = CodeIssuer(name: name, kind: kind, region: region, authority: authority)
        guard let (_, token) = try await store.create(issuer, random: environment.random, now: now, expiresAt: expiresAt) else {
            throw UsageError("an issuer named \(name) exists; remove it first to give it a new token")
        }
        let port = configuration.issuerListener.port
        let usage = switch kind {
        case .covidShield: "POST http://<verification>:\(port)/new-key-claim with the header\n  Authorization: Bearer \(token)"
        case .proteGO: "POST http://<verification>:\(port)/generateCode and /generateCodesBatch with the header\n  api-token: \(token)"
        }
        let until = lastDay.map { " Its token works until the end of \($0) (UTC)." } ?? ""
        return """
            Issuer \(name) can now issue \(kind.rawValue) codes for region \(region) of health authority \(authority): \(usage)
            This token is shown only once; store it in the issuing system's secret store.\(until)
            """
    }

    static func list(store: IssuerStore, output: ListOutputOptions) async throws -> String {
        let rows = try await store.list()
        return try output.render(IssuerList(issuers: rows.map(IssuerList.Issuer.init))) {
            guard !rows.isEmpty else { return "No issuers." }
            let lines = rows.map { row in
                let issuer = IssuerList.Issuer(row)
                return "\(issuer.name)\t\(issuer.kind)\t\(issuer.region)\t\(issuer.authority)\t\(issuer.fingerprint)…\t\(issuer.createdAt)\t"
                    + "\(row.expiresAt.map(Date.iso8601) ?? "never")\t\(row.lastUsedDay.map { StatisticsDay(number: $0).description } ?? "never")"
            }
            return (["ISSUER\tKIND\tREGION\tAUTHORITY\tTOKEN\tCREATED\tEXPIRES\tLAST USED"] + lines).joined(separator: "\n")
        }
    }

    /// Adds an issuer and answers its token (tests, and set-ups that script it).
    public static func addIssuer(_ issuer: CodeIssuer, configuration: VerificationConfiguration, environment: ServiceEnvironment) async throws -> String {
        try await withStore(configuration, environment: environment) { store in
            guard let (_, token) = try await store.create(issuer, random: environment.random, now: environment.clock.now()) else {
                throw UsageError("an issuer named \(issuer.name) exists")
            }
            return token
        }
    }
}
