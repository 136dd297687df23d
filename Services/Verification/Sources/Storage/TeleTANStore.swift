import ExposureCore
import Foundation
import SQLKit

/// Queries on `teletans`.
public struct TeleTANStore: Sendable {
    let database: Database

    public init(database: Database) { self.database = database }

    /// Stores a new teleTAN's hash; false on the (astronomically unlikely) collision with a live one.
    public func insert(hash: String, type: TeleTANType, validUntil: Date, now: Date) async throws -> Bool {
        try await database.withConnection { connection in
            try await !connection.raw("""
                INSERT INTO teletans (teletan_hash, type, valid_until, created_at, redeemed_at)
                VALUES (\(bind: hash), \(bind: type.rawValue), \(bind: validUntil.epochSeconds), \(bind: now.epochSeconds), NULL)
                ON CONFLICT (teletan_hash) DO NOTHING RETURNING teletan_hash
                """).all().isEmpty
        }
    }

    /// teleTANs issued since `since`, by every replica: the global rate limit counts these.
    public func issuedCount(since: Date) async throws -> Int {
        try await database.withConnection { connection in
            try await connection.raw("SELECT COUNT(*) AS n FROM teletans WHERE created_at > \(bind: since.epochSeconds)").first()?
                .decode(column: "n", as: Int.self) ?? 0
        }
    }
}
