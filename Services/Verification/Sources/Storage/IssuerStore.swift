import ExposureCore
import Foundation
import SQLKit
import VerificationDomain

/// An issuer as `issuers list` shows it.
public struct IssuerSummary: Sendable, Equatable {
    public let issuer: CodeIssuer
    public let createdAt: Int64
    /// The first characters of the token's hash, to tell tokens apart without revealing anything.
    public let fingerprint: String
}

/// Queries on `code_issuers`: the health-authority systems that issue one-time codes, each bound to a kind, a region
/// and its health authority, with the SHA-256 of its bearer token (`IssuerToken`).
public struct IssuerStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Adds an issuer; false when one of that name exists.
    public func add(_ issuer: CodeIssuer, tokenHash: String, now: Date) async throws -> Bool {
        try await database.withConnection { connection in
            try await !connection.raw("""
                INSERT INTO code_issuers (name, token_hash, kind, region, authority, created_at)
                VALUES (\(bind: issuer.name), \(bind: tokenHash), \(bind: issuer.kind.rawValue), \(bind: issuer.region), \(bind: issuer.authority),
                        \(bind: now.epochSeconds))
                ON CONFLICT (name) DO NOTHING RETURNING name
                """).all().isEmpty
        }
    }

    /// The issuer whose token hashes to `tokenHash`, or nil.
    public func issuer(tokenHash: String) async throws -> CodeIssuer? {
        try await database.withConnection { connection in
            guard let row = try await connection.raw("""
                SELECT name, kind, region, authority FROM code_issuers WHERE token_hash = \(bind: tokenHash)
                """).first()
            else { return nil }
            return try Self.issuer(row)
        }
    }

    public func list() async throws -> [IssuerSummary] {
        try await database.withConnection { connection in
            try await connection.raw("SELECT name, kind, region, authority, token_hash, created_at FROM code_issuers ORDER BY name").all().compactMap { row in
                guard let issuer = try Self.issuer(row) else { return nil }
                return IssuerSummary(
                    issuer: issuer, createdAt: try row.decode(column: "created_at", as: Int64.self),
                    fingerprint: String(try row.decode(column: "token_hash", as: String.self).prefix(12))
                )
            }
        }
    }

    /// Removes the issuer of that name; false when there is none. Its token stops working at once; codes it issued
    /// stay valid until they expire.
    public func remove(name: String) async throws -> Bool {
        try await database.withConnection { connection in
            try await !connection.raw("DELETE FROM code_issuers WHERE name = \(bind: name) RETURNING name").all().isEmpty
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
