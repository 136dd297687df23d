import ExposureCore
import Foundation
import PortalDomain
import SQLKit

/// A local officer account.
public struct UserRecord: Sendable, Equatable {
    public let name: String
    public let passwordHash: String
    public let roles: Set<String>
    public let disabledAt: Int64?
    public let createdAt: Int64
    /// The health authority the account belongs to; nil for a system administrator.
    public var authority: String? = AuthorityID.default
    /// The password is a temporary one a supervisor set: the officer must choose their own at sign-in.
    public var mustChangePassword: Bool = false

    public var isDisabled: Bool { disabledAt != nil }
}

/// Queries on `portal_users`.
public struct UserStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Adds an account; false when the name is taken.
    /// `temporary`: the officer must change the password at their first sign-in.
    /// `authority`: the health authority the account belongs to (nil only for a system administrator).
    public func add(
        name: String, passwordHash: String, roles: Set<String>, authority: String?, temporary: Bool = false, now: Date, audit: OfficerAuditEntry? = nil
    ) async throws -> Bool {
        try await changing(audit: audit) { connection in
            try await connection.raw("""
                INSERT INTO portal_users (name, password_hash, roles, disabled_at, created_at, updated_at, must_change_password, authority)
                VALUES (\(bind: name), \(bind: passwordHash), \(bind: RoleList.encode(roles)), NULL, \(bind: now.epochSeconds), \(bind: now.epochSeconds),
                        \(bind: temporary ? 1 : 0), \(bind: authority))
                ON CONFLICT (name) DO NOTHING RETURNING name
                """).first() != nil
        }
    }

    public func find(name: String) async throws -> UserRecord? {
        try await database.withConnection { connection in
            try await connection.raw("""
                SELECT \(unsafeRaw: Self.columns) FROM portal_users WHERE name = \(bind: name)
                """).first().map(Self.record)
        }
    }

    /// The accounts `scope` may see, by name.
    public func list(in scope: AuthorityScope) async throws -> [UserRecord] {
        try await database.withConnection { connection in
            try await connection.raw("""
                SELECT \(unsafeRaw: Self.columns) FROM portal_users WHERE 1 = 1\(Self.within(scope)) ORDER BY name
                """).all().map(Self.record)
        }
    }

    /// Disables (or re-enables) an account of `scope`; false when `scope` has no such account.
    public func setDisabled(name: String, _ disabled: Bool, in scope: AuthorityScope, now: Date, audit: OfficerAuditEntry? = nil) async throws -> Bool {
        try await changing(audit: audit) { connection in
            let disabledAt: Int64? = disabled ? now.epochSeconds : nil
            return try await connection.raw("""
                UPDATE portal_users SET disabled_at = \(bind: disabledAt), updated_at = \(bind: now.epochSeconds)
                WHERE name = \(bind: name)\(Self.within(scope)) RETURNING name
                """).first() != nil
        }
    }

    /// Replaces the password hash of an account of `scope`; false when `scope` has no such account. `temporary`: the
    /// officer must change it at their next sign-in.
    public func setPassword(
        name: String, passwordHash: String, in scope: AuthorityScope, temporary: Bool = false, now: Date, audit: OfficerAuditEntry? = nil
    ) async throws -> Bool {
        try await changing(audit: audit) { connection in
            try await connection.raw("""
                UPDATE portal_users SET password_hash = \(bind: passwordHash), must_change_password = \(bind: temporary ? 1 : 0),
                    updated_at = \(bind: now.epochSeconds)
                WHERE name = \(bind: name)\(Self.within(scope)) RETURNING name
                """).first() != nil
        }
    }

    static let columns = "name, password_hash, roles, disabled_at, created_at, must_change_password, authority"

    /// The condition that keeps a query to `scope`'s accounts (nothing for the national view).
    static func within(_ scope: AuthorityScope) -> SQLQueryString {
        guard let authority = scope.authorityID else { return "" }
        return " AND authority = \(bind: authority)"
    }

    /// Runs `change` (true: it changed an account) and, with `audit`, writes the audit row in the same transaction:
    /// a supervisor's step and its audit row are stored together or not at all. Without one (the command line, the
    /// sign-in's own bookkeeping) the change runs alone.
    func changing(audit: OfficerAuditEntry?, _ change: @escaping @Sendable (any SQLDatabase) async throws -> Bool) async throws -> Bool {
        guard let audit else { return try await database.withConnection(change) }
        return try await database.transaction { connection in
            guard try await change(connection) else { return false }
            try await OfficerAuditLog.insert(audit, on: connection)
            return true
        }
    }

    private static func record(_ row: any SQLRow) throws -> UserRecord {
        UserRecord(
            name: try row.decode(column: "name", as: String.self),
            passwordHash: try row.decode(column: "password_hash", as: String.self),
            roles: RoleList.decode(try row.decode(column: "roles", as: String.self)),
            disabledAt: try row.decode(column: "disabled_at", as: Int64?.self),
            createdAt: try row.decode(column: "created_at", as: Int64.self),
            authority: try row.decode(column: "authority", as: String?.self),
            mustChangePassword: try row.decode(column: "must_change_password", as: Int64.self) != 0
        )
    }
}

/// Roles as stored in one column: sorted, comma-separated.
enum RoleList {
    static func encode(_ roles: Set<String>) -> String { roles.sorted().joined(separator: ",") }
    static func decode(_ text: String) -> Set<String> { Set(text.split(separator: ",").map(String.init)) }
}
