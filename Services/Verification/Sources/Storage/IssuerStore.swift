import ExposureCore
import Foundation
import SQLKit
import VerificationDomain

/// Queries on `code_issuers`: the health-authority systems that issue one-time codes, each bound to a kind, a region
/// and its health authority, with the SHA-256 of its bearer token (`IssuerToken`).
public struct IssuerStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Adds an issuer whose token stops working at `expiresAt` (never, without one) and answers it as listed; nil
    /// when one of that name exists. `createdBy` names the officer who made it in the portal.
    public func add(
        _ issuer: CodeIssuer, tokenHash: String, now: Date, expiresAt: Date? = nil, createdBy: String? = nil
    ) async throws -> IssuerSummary? {
        let added = try await database.withConnection { connection in
            try await !connection.raw("""
                INSERT INTO code_issuers (name, token_hash, kind, region, authority, created_at, expires_at, created_by)
                VALUES (\(bind: issuer.name), \(bind: tokenHash), \(bind: issuer.kind.rawValue), \(bind: issuer.region), \(bind: issuer.authority),
                        \(bind: now.epochSeconds), \(bind: expiresAt?.epochSeconds), \(bind: createdBy))
                ON CONFLICT (name) DO NOTHING RETURNING name
                """).all().isEmpty
        }
        guard added else { return nil }
        return IssuerSummary(
            issuer: issuer, createdAt: now.epochSeconds, tokenHash: tokenHash, expiresAt: expiresAt?.epochSeconds, lastUsedDay: nil, createdBy: createdBy
        )
    }

    /// The issuer whose token hashes to `tokenHash` and has not expired at `now`, or nil.
    public func issuer(tokenHash: String, now: Date) async throws -> CodeIssuer? {
        try await database.withConnection { connection in
            guard let row = try await connection.raw("""
                SELECT name, kind, region, authority FROM code_issuers WHERE token_hash = \(bind: tokenHash) \
                AND (expires_at IS NULL OR expires_at > \(bind: now.epochSeconds))
                """).first()
            else { return nil }
            return try Self.issuer(row)
        }
    }

    /// Notes that the issuer's token was used on `day`. The row is written once a day at most: later calls of the
    /// day find it current and change nothing.
    public func markUsed(name: String, day: Int64) async throws {
        try await database.withConnection { connection in
            try await connection.raw("""
                UPDATE code_issuers SET last_used_day = \(bind: day) \
                WHERE name = \(bind: name) AND (last_used_day IS NULL OR last_used_day < \(bind: day))
                """).run()
        }
    }

    /// The issuers, by name: every authority's, or with `authority` only that one's.
    public func list(authority: String? = nil) async throws -> [IssuerSummary] {
        try await database.withConnection { connection in
            var query = SQLQueryString(
                "SELECT name, kind, region, authority, token_hash, created_at, expires_at, last_used_day, created_by FROM code_issuers")
            if let authority { query.appendInterpolation(" WHERE authority = \(bind: authority)" as SQLQueryString) }
            query.appendLiteral(" ORDER BY name")
            return try await connection.raw(query).all().compactMap { row in
                guard let issuer = try Self.issuer(row) else { return nil }
                return IssuerSummary(
                    issuer: issuer, createdAt: try row.decode(column: "created_at", as: Int64.self),
                    tokenHash: try row.decode(column: "token_hash", as: String.self),
                    expiresAt: try row.decode(column: "expires_at", as: Int64?.self),
                    lastUsedDay: try row.decode(column: "last_used_day", as: Int64?.self),
                    createdBy: try row.decode(column: "created_by", as: String?.self)
                )
            }
        }
    }

    /// Removes the issuer of that name (of `authority`, when given); false when there is none. Its token stops
    /// working at once; codes it issued stay valid until they expire.
    public func remove(name: String, authority: String? = nil) async throws -> Bool {
        try await database.withConnection { connection in
            var delete = SQLQueryString("DELETE FROM code_issuers WHERE name = \(bind: name)")
            if let authority { delete.appendInterpolation(" AND authority = \(bind: authority)" as SQLQueryString) }
            delete.appendLiteral(" RETURNING name")
            return try await !connection.raw(delete).all().isEmpty
        }
    }

    private static func issuer(_ row: any SQLRow) throws -> CodeIssuer? {
        guard let kind = OneTimeCodeKind(rawValue: try row.decode(column: "kind", as: String.self)) else { return nil }
        return CodeIssuer(
            name: try row.decode(column: "name", as: String.self), kind: kind, region: try row.decode(column: "region", as: String.self),
            authority: try row.decode(column: "authority", as: String.self)
        )
    }
}
