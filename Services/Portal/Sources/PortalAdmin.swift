import ExposureCore
import Foundation

/// The operator's commands for local accounts and the audit log:
/// `users add <name> --roles r1,r2`, `users list`, `users disable <name>`, `users enable <name>`,
/// `users set-password <name>`, `audit [--limit n]`.
public enum PortalAdmin {
    /// Where a new password comes from: the terminal or standard input (nil when nothing was given, in which
    /// case a password is generated and shown once).
    public typealias PasswordSource = @Sendable () throws -> String?

    public static func users(
        _ words: [String],
        configuration: PortalConfiguration,
        environment: ServiceEnvironment,
        password: PasswordSource = PasswordInput.read
    ) async throws -> String {
        try await Database.withOpened(configuration.common, migrator: PortalMigrations.migrator, environment: environment) { database in
            try await users(words, database: database, cost: configuration.bcryptCost, environment: environment, password: password)
        }
    }

    static func users(
        _ words: [String],
        database: Database,
        cost: Int,
        environment: ServiceEnvironment,
        password: PasswordSource
    ) async throws -> String {
        let store = UserStore(database: database)
        let sessions = SessionStore(database: database)
        let signInAttempts = SignInAttemptStore(database: database)
        let hasher = PasswordHasher(cost: cost)
        let now = environment.clock.now()
        let positional = words.positional
        switch (positional.first, positional.count) {
        case ("add", 2):
            let name = try validName(positional[1])
            let roles = try parseRoles(words)
            let (secret, generated) = try newPassword(password, random: environment.random)
            guard try await store.add(name: name, passwordHash: try await hasher.hash(secret), roles: roles, now: now) else {
                throw UsageError("a user named \(name) exists already")
            }
            let added = "Added \(name) with roles \(roles.isEmpty ? "(none)" : roles.sorted().joined(separator: ","))."
            return generated ? added + "\nPassword (shown only once): \(secret)" : added
        case ("list", 1):
            let rows = try await store.list()
            guard !rows.isEmpty else { return "No users." }
            let lines = rows.map { user in
                let state = user.disabledAt.map { "disabled \(iso($0))" } ?? "active"
                return "\(user.name)\t\(user.roles.sorted().joined(separator: ","))\tcreated \(iso(user.createdAt))\t\(state)"
            }
            return (["NAME\tROLES\tCREATED\tSTATE"] + lines).joined(separator: "\n")
        case ("disable", 2), ("enable", 2):
            let disable = positional[0] == "disable"
            guard try await store.setDisabled(name: positional[1], disable, now: now) else { throw UsageError("no user named \(positional[1])") }
            guard disable else {
                try await signInAttempts.reset(name: positional[1])
                return "Enabled \(positional[1]); its sign-in attempts count from zero."
            }
            let ended = try await sessions.deleteAll(localOfficer: positional[1])
            return "Disabled \(positional[1]); ended \(ended) session(s)."
        case ("set-password", 2):
            let (secret, generated) = try newPassword(password, random: environment.random)
            guard try await store.setPassword(name: positional[1], passwordHash: try await hasher.hash(secret), now: now) else {
                throw UsageError("no user named \(positional[1])")
            }
            // Whoever knew the old password must not stay signed in; the officer may sign in with the new one at once.
            let ended = try await sessions.deleteAll(localOfficer: positional[1])
            try await signInAttempts.reset(name: positional[1])
            let changed = "Changed the password of \(positional[1]); ended \(ended) session(s); its sign-in attempts count from zero."
            return generated ? changed + "\nPassword (shown only once): \(secret)" : changed
        default:
            throw UsageError("usage: users add <name> --roles c19hotline,c19hotline_event | users list | users disable <name> | users enable <name> | users set-password <name>")
        }
    }

    /// The latest audit entries, newest first (`audit [--limit n]`).
    public static func audit(_ words: [String], configuration: PortalConfiguration, environment: ServiceEnvironment) async throws -> String {
        let limit = try auditLimit(words)
        return try await Database.withOpened(configuration.common, migrator: PortalMigrations.migrator, environment: environment) {
            try await audit(limit: limit, database: $0)
        }
    }

    static func audit(_ words: [String], database: Database) async throws -> String {
        try await audit(limit: try auditLimit(words), database: database)
    }

    private static func audit(limit: Int, database: Database) async throws -> String {
        let entries = try await AuditLog(database: database).recent(limit: limit)
        guard !entries.isEmpty else { return "No teleTAN requests yet." }
        let lines = entries.map { "\(iso($0.occurredAt))\t\($0.source.rawValue):\($0.officer)\t\($0.kind.rawValue)\t\($0.healthAuthority ?? "-")\t\($0.outcome.rawValue)" }
        return (["TIME\tOFFICER\tTYPE\tHEALTH AUTHORITY\tOUTCOME"] + lines).joined(separator: "\n")
    }

    /// `--limit n`: 100 entries unless told otherwise, at most 100,000.
    static func auditLimit(_ words: [String]) throws -> Int {
        guard let text = words.flag("limit") else { return 100 }
        guard let limit = Int(text), (1...100_000).contains(limit) else {
            throw UsageError("--limit takes a whole number from 1 to 100000, not '\(text)'")
        }
        return limit
    }

    // MARK: Helpers

    static func validName(_ name: String) throws -> String {
        guard UserName.isWellFormed(name) else {
            throw UsageError("a user name has 1 to 64 letters, digits, '.', '_', '@' or '-'")
        }
        return name
    }

    /// `--roles a,b` or `--roles=a,b`; only the portal's roles, so that a typo does not create a useless account.
    static func parseRoles(_ words: [String]) throws -> Set<String> {
        guard let text = words.flag("roles") else { throw UsageError("say which roles the user has: --roles c19hotline,c19hotline_event") }
        let roles = Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        let unknown = roles.subtracting(OfficerRoles.all)
        guard unknown.isEmpty else {
            throw UsageError("unknown role(s) \(unknown.sorted().joined(separator: ",")); the roles are \(OfficerRoles.all.sorted().joined(separator: ", "))")
        }
        return roles
    }

    private static func newPassword(_ source: PasswordSource, random: any RandomSource) throws -> (String, generated: Bool) {
        guard let given = try source(), !given.isEmpty else { return (PasswordPolicy.generate(using: random), true) }
        if let problem = PasswordPolicy.problem(with: given) { throw UsageError(problem) }
        return (given, false)
    }

    private static func iso(_ seconds: Int64) -> String {
        Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601)
    }
}
