import ExposureCore
import Foundation
import SQLKit
import VerificationDomain

/// Queries on `enx_api_keys`: the `X-API-Key`s of the ENX family (`ENXAPIKey`), each of one health authority and one
/// role, stored as the SHA-256 of the key (256 random bits need no key to resist guessing), made and removed with
/// `verification-service enx-keys`.
public struct ENXAPIKeyStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// A key of this name exists already.
    public struct NameTaken: Error {}

    /// Stores a new key and answers it (shown once).
    public func add(_ key: ENXAPIKey, now: Int64, createdBy: String?, random: any RandomSource) async throws -> String {
        let secret = ENXAPIKey.format.generate(using: random)
        let inserted = try await database.withConnection { connection in
            try await connection.raw("""
                INSERT INTO enx_api_keys (key_hash, name, authority, role, created_at, created_by)
                VALUES (\(bind: ENXAPIKey.format.hash(secret)), \(bind: key.name), \(bind: key.authority), \(bind: key.role.rawValue), \(bind: now), \(bind: createdBy))
                ON CONFLICT DO NOTHING RETURNING name
                """).first()
        }
        guard inserted != nil else { throw NameTaken() }
        return secret
    }

    /// The key `secret` is, if any.
    public func key(secret: String) async throws -> ENXAPIKey? {
        guard ENXAPIKey.format.isWellFormed(secret) else { return nil }
        let row = try await database.withConnection { connection in
            try await connection.raw("SELECT name, authority, role FROM enx_api_keys WHERE key_hash = \(bind: ENXAPIKey.format.hash(secret))").first()
        }
        guard let row, let role = ENXAPIKey.Role(rawValue: try row.decode(column: "role", as: String.self)) else { return nil }
        return ENXAPIKey(name: try row.decode(column: "name", as: String.self), authority: try row.decode(column: "authority", as: String.self), role: role)
    }

    /// Every key, by name: never the secret, only the first characters of its hash.
    public func list() async throws -> [(key: ENXAPIKey, fingerprint: String, createdAt: Int64)] {
        try await database.withConnection { connection in
            try await connection.raw("SELECT name, authority, role, key_hash, created_at FROM enx_api_keys ORDER BY name").all()
        }.compactMap { row in
            guard let role = ENXAPIKey.Role(rawValue: try row.decode(column: "role", as: String.self)) else { return nil }
            return (
                ENXAPIKey(name: try row.decode(column: "name", as: String.self), authority: try row.decode(column: "authority", as: String.self), role: role),
                String(try row.decode(column: "key_hash", as: String.self).prefix(12)), try row.decode(column: "created_at", as: Int64.self)
            )
        }
    }

    /// Removes the key `name`: it stops working at once. False when there is none.
    public func remove(name: String) async throws -> Bool {
        try await database.withConnection { connection in
            try await connection.raw("DELETE FROM enx_api_keys WHERE name = \(bind: name) RETURNING name").first() != nil
        }
    }
}
