import ExposureCore
import Foundation
import Logging
import PortalDomain

/// The operator's work on local accounts and the audit log, behind `portal-service users …` and `audit`
/// (the command types are in Commands/). Each returns what the command prints.
public enum PortalAdmin {
    /// Where a new password comes from: the terminal or standard input (nil when nothing was given, in which
    /// case a password is generated and shown once).
    public typealias PasswordSource = @Sendable () throws -> String?

    /// What the administration commands run against.
    public struct Context: Sendable {
        public let database: Database
        /// bcrypt cost of new password hashes (`BCRYPT_COST`).
        public let cost: Int
        public let environment: ServiceEnvironment
        public let password: PasswordSource

        public init(database: Database, cost: Int, environment: ServiceEnvironment, password: @escaping PasswordSource) {
            self.database = database
            self.cost = cost
            self.environment = environment
            self.password = password
        }
    }

    /// Opens the configured database for one administration command and closes it again.
    public static func withContext<Output>(
        _ configuration: PortalConfiguration,
        environment: ServiceEnvironment,
        password: @escaping PasswordSource = PasswordInput.read,
        _ body: (Context) async throws -> Output
    ) async throws -> Output {
        try await Database.withOpened(configuration.common, migrator: PortalMigrations.migrator, environment: environment) { database in
            try await body(Context(database: database, cost: configuration.bcryptCost, environment: environment, password: password))
        }
    }

    /// `users …` given as words (`["add", "anna", "--roles", "c19hotline"]`), parsed as the executable parses them,
    /// against the configured database (the all-in-one launcher's first start).
    public static func users(
        _ words: [String],
        configuration: PortalConfiguration,
        environment: ServiceEnvironment,
        password: @escaping PasswordSource = PasswordInput.read
    ) async throws -> String {
        let action = try UsersCommand.action(words)
        return try await withContext(configuration, environment: environment, password: password) { try await action.output(in: $0) }
    }

    /// `audit …` given as words (`["--authority", "north"]`), against the configured database (the demo's look at
    /// each authority's log).
    public static func audit(_ words: [String], configuration: PortalConfiguration, environment: ServiceEnvironment) async throws -> String {
        let action = try AuditCommand.action(words)
        return try await withContext(configuration, environment: environment, password: { nil }) { try await action.output(in: $0) }
    }

    /// `users …` given as words, against an open database.
    static func users(_ words: [String], database: Database, cost: Int, environment: ServiceEnvironment, password: @escaping PasswordSource) async throws -> String {
        try await UsersCommand.action(words).output(in: Context(database: database, cost: cost, environment: environment, password: password))
    }

    /// `audit …` given as words, against an open database.
    static func audit(_ words: [String], database: Database) async throws -> String {
        let command = try AuditCommand.action(words)
        return try await command.output(in: Context(database: database, cost: 4, environment: ServiceEnvironment(logger: .init(label: "exposure.portal")), password: { nil }))
    }

    // MARK: The work

    /// `authority`: the account's health authority (`default` when not given); a system administrator has none.
    static func addUser(_ name: String, roles: String, authority: String?, in context: Context) async throws -> String {
        let name = try validName(name)
        let roles = try parseRoles(roles)
        let belongsTo = try accountAuthority(authority, roles: roles)
        let (secret, generated) = try newPassword(context)
        let hash = try await PasswordHasher(cost: context.cost).hash(secret)
        guard try await UserStore(database: context.database).add(
            name: name, passwordHash: hash, roles: roles, authority: belongsTo, now: context.environment.clock.now()
        ) else {
            throw UsageError("a user named \(name) exists already")
        }
        let added = "Added \(name) with roles \(roles.isEmpty ? "(none)" : roles.sorted().joined(separator: ","))"
            + (belongsTo.map { " to the health authority \($0)." } ?? " as a system administrator, of no health authority.")
        return generated ? added + "\nPassword (shown only once): \(secret)" : added
    }

    /// The authority an account joins: none for a system administrator (who may not be given one), the one given,
    /// else `default`.
    private static func accountAuthority(_ given: String?, roles: Set<String>) throws -> String? {
        if roles.contains(OfficerRoles.systemAdministrator) {
            guard given == nil, roles == [OfficerRoles.systemAdministrator] else {
                throw UsageError("a system administrator (\(OfficerRoles.systemAdministrator)) has no other role and belongs to no health authority")
            }
            return nil
        }
        let authority = given ?? AuthorityID.default
        guard AuthorityID.isWellFormed(authority) else { throw UsageError("--authority: 1 to 32 of a-z, 0-9 and '-', not starting with '-'") }
        return authority
    }

    /// `authority`: only that health authority's accounts.
    static func listUsers(authority: String?, in context: Context, output: ListOutputOptions) async throws -> String {
        let users = try await UserStore(database: context.database).list(in: authority.map(AuthorityScope.authority) ?? .national)
        return try output.render(UserList(users: users.map(UserList.User.init))) {
            guard !users.isEmpty else { return "No users." }
            let lines = users.map { user in
                let state = user.disabledAt.map { "disabled \(Date.iso8601($0))" } ?? "active"
                // The authority comes last, so that a script reading the older columns by position reads them still.
                return "\(user.name)\t\(user.roles.sorted().joined(separator: ","))\tcreated \(Date.iso8601(user.createdAt))\t\(state)\t\(user.authority ?? "-")"
            }
            return (["NAME\tROLES\tCREATED\tSTATE\tAUTHORITY"] + lines).joined(separator: "\n")
        }
    }

    static func setDisabled(_ name: String, _ disable: Bool, in context: Context) async throws -> String {
        guard try await UserStore(database: context.database).setDisabled(name: name, disable, in: .national, now: context.environment.clock.now()) else {
            throw UsageError("no user named \(name)")
        }
        guard disable else {
            try await SignInAttemptStore(database: context.database).reset(name: name)
            return "Enabled \(name); its sign-in attempts count from zero."
        }
        let ended = try await SessionStore(database: context.database).deleteAll(localOfficer: name)
        return "Disabled \(name); ended \(ended) session(s)."
    }

    static func setPassword(_ name: String, in context: Context) async throws -> String {
        let (secret, generated) = try newPassword(context)
        let hash = try await PasswordHasher(cost: context.cost).hash(secret)
        guard try await UserStore(database: context.database).setPassword(name: name, passwordHash: hash, in: .national, now: context.environment.clock.now()) else {
            throw UsageError("no user named \(name)")
        }
        // Whoever knew the old password must not stay signed in; the officer may sign in with the new one at once.
        let ended = try await SessionStore(database: context.database).deleteAll(localOfficer: name)
        try await SignInAttemptStore(database: context.database).reset(name: name)
        let changed = "Changed the password of \(name); ended \(ended) session(s); its sign-in attempts count from zero."
        return generated ? changed + "\nPassword (shown only once): \(secret)" : changed
    }

    static func resetTwoFactor(_ name: String, in context: Context) async throws -> String {
        guard try await TwoFactorStore(database: context.database).reset(name: name) else {
            throw UsageError("no user named \(name)")
        }
        let ended = try await SessionStore(database: context.database).deleteAll(localOfficer: name)
        return "Reset the two-factor sign-in of \(name); ended \(ended) session(s); it is set up again at the next sign-in."
    }

    /// The latest audit entries of `scope`, newest first.
    static func audit(limit: Int, in scope: AuthorityScope, context: Context, output: ListOutputOptions) async throws -> String {
        let entries = try await AuditLog(database: context.database).recent(limit: limit, in: scope)
        return try output.render(AuditList(entries: entries.map(AuditList.Entry.init))) {
            guard !entries.isEmpty else { return "No teleTAN requests yet." }
            // The officer's authority comes last, so that a script reading the older columns by position reads them still.
            let lines = entries.map {
                "\(Date.iso8601($0.occurredAt))\t\($0.source.rawValue):\($0.officer)\t\($0.kind.rawValue)\t\($0.healthAuthority ?? "-")\t\($0.outcome.rawValue)\t\($0.authority ?? "-")"
            }
            return (["TIME\tOFFICER\tTYPE\tHEALTH AUTHORITY\tOUTCOME\tAUTHORITY"] + lines).joined(separator: "\n")
        }
    }

    // MARK: Helpers

    static func validName(_ name: String) throws -> String {
        guard UserName.isWellFormed(name) else {
            throw UsageError("a user name has 1 to 64 letters, digits, '.', '_', '@' or '-'")
        }
        return name
    }

    /// `--roles a,b`: only the portal's roles, so that a typo does not create a useless account.
    static func parseRoles(_ text: String) throws -> Set<String> {
        let roles = Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        let unknown = roles.subtracting(OfficerRoles.all)
        guard unknown.isEmpty else {
            throw UsageError("unknown role(s) \(unknown.sorted().joined(separator: ",")); the roles are \(OfficerRoles.all.sorted().joined(separator: ", "))")
        }
        return roles
    }

    private static func newPassword(_ context: Context) throws -> (String, generated: Bool) {
        guard let given = try context.password(), !given.isEmpty else { return (PasswordPolicy.generate(using: context.environment.random), true) }
        if let problem = PasswordPolicy.problem(with: given) { throw UsageError(problem) }
        return (given, false)
    }

}
