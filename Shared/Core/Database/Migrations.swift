import Foundation
import Logging
import SQLKit

/// One step of a service's schema, applied once and recorded in `schema_migrations`.
public struct Migration: Sendable {
    public let version: Int
    public let name: String
    /// Statements to run, per dialect (most are the same text for both).
    public let statements: @Sendable (Database.Dialect) -> [String]

    public init(version: Int, name: String, statements: @escaping @Sendable (Database.Dialect) -> [String]) {
        self.version = version
        self.name = name
        self.statements = statements
    }

    public init(version: Int, name: String, sql: [String]) {
        self.init(version: version, name: name, statements: { _ in sql })
    }
}

/// Applies a service's migrations in order at start-up.
///
/// Each service records its own versions (`service` column), so several services may share one database.
/// On PostgreSQL an advisory lock (one for every service, since they may share the bookkeeping table) makes
/// replicas that start together take turns: the first migrates, the others find nothing left to do. Each
/// migration runs in its own transaction.
public struct Migrator: Sendable {
    public let service: String
    public let migrations: [Migration]

    public init(service: String, migrations: [Migration]) {
        precondition(Set(migrations.map(\.version)).count == migrations.count, "duplicate migration version")
        self.service = service
        self.migrations = migrations.sorted { $0.version < $1.version }
    }

    /// Applies what is missing; returns the versions it applied.
    @discardableResult
    public func migrate(_ database: Database, clock: any WallClock = SystemClock(), logger: Logger) async throws -> [Int] {
        if database.dialect == .postgres {
            // Session-level lock on one pooled connection; everything below happens on that same connection, the
            // creation of the bookkeeping table included (concurrent CREATE TABLE IF NOT EXISTS can collide).
            return try await database.withHeldConnection { connection in
                let key = Self.lockKey(for: "schema")
                try await connection.raw("SELECT pg_advisory_lock(\(bind: key))").run()
                do {
                    // A service that connects as a role without DDL rights (docs/operations.md, "Database roles") finds
                    // its schema migrated by the migration role. PostgreSQL checks CREATE TABLE IF NOT EXISTS against
                    // the schema's rights even when the table exists, so it is not even tried then.
                    if try await !Self.bookkeepingExists(on: connection) {
                        do {
                            try await Self.createBookkeeping(on: connection)
                        } catch {
                            // Most often a service role where the migration role belongs: say which step it was.
                            throw MigrationError(service: service, version: 0, name: "the bookkeeping table schema_migrations", underlying: error)
                        }
                    }
                    let applied = try await applyMissing(on: connection, dialect: .postgres, clock: clock, logger: logger)
                    try await connection.raw("SELECT pg_advisory_unlock(\(bind: key))").run()
                    return applied
                } catch {
                    _ = try? await connection.raw("SELECT pg_advisory_unlock(\(bind: key))").run()
                    throw error
                }
            }
        } else {
            // SQLite: one IMMEDIATE transaction holds the file's write lock from reading the applied versions to
            // the last migration, so two processes opening the same file take turns (SQLite DDL is transactional).
            return try await database.transaction { connection in
                try await Self.createBookkeeping(on: connection)
                return try await applyMissing(on: connection, dialect: .sqlite, clock: clock, logger: logger)
            }
        }
    }

    private static func bookkeepingExists(on connection: any SQLDatabase) async throws -> Bool {
        let row = try await connection.raw("SELECT to_regclass('schema_migrations') IS NOT NULL AS present").first()
        return try row?.decode(column: "present", as: Bool.self) ?? false
    }

    private static func createBookkeeping(on connection: any SQLDatabase) async throws {
        try await connection.raw("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                service TEXT NOT NULL,
                version INTEGER NOT NULL,
                name TEXT NOT NULL,
                applied_at BIGINT NOT NULL,
                PRIMARY KEY (service, version)
            )
            """).run()
    }

    private func applyMissing(
        on connection: any SQLDatabase,
        dialect: Database.Dialect,
        clock: any WallClock,
        logger: Logger
    ) async throws -> [Int] {
        let rows = try await connection.raw("SELECT version FROM schema_migrations WHERE service = \(bind: service)").all()
        let done = Set(try rows.map { try $0.decode(column: "version", as: Int.self) })
        var applied: [Int] = []
        for migration in migrations where !done.contains(migration.version) {
            // PostgreSQL: a transaction per migration, under the advisory lock. SQLite: already inside one.
            let ownTransaction = dialect == .postgres
            if ownTransaction { try await connection.raw("BEGIN").run() }
            do {
                for statement in migration.statements(dialect) {
                    try await connection.raw(SQLQueryString(statement)).run()
                }
                try await connection.raw("""
                    INSERT INTO schema_migrations (service, version, name, applied_at)
                    VALUES (\(bind: service), \(bind: migration.version), \(bind: migration.name), \(bind: clock.now().epochSeconds))
                    """).run()
                if ownTransaction { try await connection.raw("COMMIT").run() }
            } catch {
                if ownTransaction { _ = try? await connection.raw("ROLLBACK").run() }
                throw MigrationError(service: service, version: migration.version, name: migration.name, underlying: error)
            }
            logger.info("applied migration", metadata: ["service": "\(service)", "version": "\(migration.version)", "name": "\(migration.name)"])
            applied.append(migration.version)
        }
        return applied
    }

    /// A stable 63-bit key per service for `pg_advisory_lock` (FNV-1a of the service name).
    static func lockKey(for service: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "exposure-suite.migrations.\(service)".utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return Int64(bitPattern: hash & 0x7FFF_FFFF_FFFF_FFFF)
    }
}

public struct MigrationError: Error, CustomStringConvertible {
    public let service: String
    public let version: Int
    public let name: String
    public let underlying: any Error

    public var description: String {
        "migration \(version) (\(name)) of \(service) failed: \(String(reflecting: underlying))"
    }
}
