import ExposureCore
import Foundation
import PortalDomain
import SQLKit

/// A signed-in browser, as stored in `portal_sessions` (so that every replica knows it).
public struct PortalSession: Sendable {
    /// SHA-256 of the cookie value.
    public let idHash: String
    public let officer: Officer
    /// The token every form of this session carries (synchronizer-token pattern).
    public let csrfToken: String
    public let createdAt: Int64
    public let expiresAt: Int64
    /// OIDC sessions: the provider's tokens, used as the bearer towards verification.
    public var oidcTokens: OIDCSessionTokens?
    /// A step the officer must finish before the portal serves this session anything else.
    public var pendingStep: SessionStep? = nil
}

public struct OIDCSessionTokens: Sendable, Equatable {
    public var accessToken: String
    public var accessTokenExpiresAt: Int64?
    public var refreshToken: String?
}

/// Queries on `portal_sessions`.
public struct SessionStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Stores a session. A local sign-in passes the password hash it checked: the session is then stored only while
    /// the account is still enabled with that hash, and the answer says whether it was. One statement decides, so a
    /// sign-in whose password check was running while an administrator disabled the account or set its password
    /// (and ended its sessions) gets no session.
    @discardableResult
    public func create(_ session: PortalSession, whileAccountHasPasswordHash passwordHash: String? = nil) async throws -> Bool {
        var query: SQLQueryString = """
            INSERT INTO portal_sessions (id_hash, officer, roles, source, csrf_token, created_at, expires_at,
                                         access_token, access_token_expires_at, refresh_token, pending_step, authority)
            SELECT \(bind: session.idHash), \(bind: session.officer.name), \(bind: RoleList.encode(session.officer.roles)),
                   \(bind: session.officer.source.rawValue), \(bind: session.csrfToken), \(bind: session.createdAt),
                   \(bind: session.expiresAt), \(bind: session.oidcTokens?.accessToken),
                   \(bind: session.oidcTokens?.accessTokenExpiresAt), \(bind: session.oidcTokens?.refreshToken),
                   \(bind: session.pendingStep?.rawValue), \(bind: session.officer.authority)
            """
        if let passwordHash {
            query += """

                WHERE EXISTS (SELECT 1 FROM portal_users WHERE name = \(bind: session.officer.name)
                              AND password_hash = \(bind: passwordHash) AND disabled_at IS NULL)
                """
        }
        query += " RETURNING id_hash"
        return try await database.withConnection { [query] connection in try await connection.raw(query).first() != nil }
    }

    /// The session with this hash, unless it has expired.
    public func find(idHash: String, now: Date) async throws -> PortalSession? {
        try await database.withConnection { connection in
            guard let row = try await connection.raw("""
                SELECT id_hash, officer, roles, source, csrf_token, created_at, expires_at,
                       access_token, access_token_expires_at, refresh_token, pending_step, authority
                FROM portal_sessions WHERE id_hash = \(bind: idHash) AND expires_at > \(bind: now.epochSeconds)
                """).first() else { return nil }
            guard let source = Officer.Source(rawValue: try row.decode(column: "source", as: String.self)) else { return nil }
            let accessToken = try row.decode(column: "access_token", as: String?.self)
            return PortalSession(
                idHash: try row.decode(column: "id_hash", as: String.self),
                officer: Officer(
                    name: try row.decode(column: "officer", as: String.self),
                    roles: RoleList.decode(try row.decode(column: "roles", as: String.self)),
                    source: source,
                    authority: try row.decode(column: "authority", as: String?.self)
                ),
                csrfToken: try row.decode(column: "csrf_token", as: String.self),
                createdAt: try row.decode(column: "created_at", as: Int64.self),
                expiresAt: try row.decode(column: "expires_at", as: Int64.self),
                oidcTokens: try accessToken.map { token in
                    OIDCSessionTokens(
                        accessToken: token,
                        accessTokenExpiresAt: try row.decode(column: "access_token_expires_at", as: Int64?.self),
                        refreshToken: try row.decode(column: "refresh_token", as: String?.self)
                    )
                },
                // A step this version does not know is one the session has not finished: it gets no further.
                pendingStep: try row.decode(column: "pending_step", as: String?.self).map { SessionStep(rawValue: $0) ?? .secondFactor }
            )
        }
    }

    /// Stores refreshed provider tokens.
    public func updateTokens(idHash: String, _ tokens: OIDCSessionTokens) async throws {
        try await database.withConnection { connection in
            try await connection.raw("""
                UPDATE portal_sessions SET access_token = \(bind: tokens.accessToken),
                    access_token_expires_at = \(bind: tokens.accessTokenExpiresAt), refresh_token = \(bind: tokens.refreshToken)
                WHERE id_hash = \(bind: idHash)
                """).run()
        }
    }

    public func delete(idHash: String) async throws {
        try await database.withConnection { connection in
            try await connection.raw("DELETE FROM portal_sessions WHERE id_hash = \(bind: idHash)").run()
        }
    }

    /// Ends every session of a local account (after it is disabled or its password changes); returns how many.
    @discardableResult
    public func deleteAll(localOfficer name: String) async throws -> Int {
        try await database.withConnection { connection in
            try await connection.raw("""
                DELETE FROM portal_sessions WHERE source = \(bind: Officer.Source.local.rawValue) AND officer = \(bind: name)
                RETURNING id_hash
                """).all().count
        }
    }

    /// Removes expired sessions; returns how many.
    public func deleteExpired(now: Date) async throws -> Int {
        try await database.withConnection { connection in
            try await connection.raw("DELETE FROM portal_sessions WHERE expires_at <= \(bind: now.epochSeconds) RETURNING id_hash").all().count
        }
    }
}
