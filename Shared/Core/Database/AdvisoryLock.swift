import Foundation
import SQLKit

/// "Only one replica at a time" for scheduled jobs (retention, distribution).
///
/// PostgreSQL: a transaction-scoped advisory lock, tried without waiting, so a replica that finds the job
/// running elsewhere skips this round. SQLite: the round is one `BEGIN IMMEDIATE` transaction, so rounds of two
/// processes on one file take turns rather than skip; that suits retention, whose second round finds nothing left
/// to delete. A job that must not run twice at all (distribution) takes `ExclusiveJob`'s file lock instead.
public enum JobLock {
    /// Runs `body` inside a transaction if this replica wins the lock named `name`; returns nil when
    /// another replica holds it.
    public static func runExclusively<T: Sendable>(
        _ name: String,
        on database: Database,
        _ body: @Sendable @escaping (any SQLDatabase) async throws -> T
    ) async throws -> T? {
        switch database.dialect {
        case .postgres:
            let key = Migrator.lockKey(for: "job." + name)
            return try await database.transaction { connection in
                let row = try await connection.raw("SELECT pg_try_advisory_xact_lock(\(bind: key)) AS locked").first()
                guard let locked = try row?.decode(column: "locked", as: Bool.self), locked else { return nil }
                return try await body(connection)
            }
        case .sqlite:
            return try await database.transaction { connection in try await body(connection) }
        }
    }
}
