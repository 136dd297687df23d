import ExposureCore
import ExposureTestSupport
import Foundation
import SQLKit
import Testing

@Suite struct DatabaseTests {
    static let migrations = [
        Migration(version: 1, name: "create things", sql: ["CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)"]),
        Migration(version: 2, name: "add colour", sql: ["ALTER TABLE things ADD COLUMN colour TEXT"]),
    ]

    @Test(arguments: TestDatabase.all)
    func migrationsApplyOnceAndAreRecorded(kind: TestDatabase) async throws {
        try await kind.withFreshDatabase { database in
            let migrator = Migrator(service: "core-test", migrations: Self.migrations)
            #expect(try await migrator.migrate(database, logger: TestLogger.quiet) == [1, 2])
            #expect(try await migrator.migrate(database, logger: TestLogger.quiet) == [])
            let versions = try await database.withConnection { connection in
                try await connection.raw("SELECT version FROM schema_migrations WHERE service = 'core-test' ORDER BY version").all()
                    .map { try $0.decode(column: "version", as: Int.self) }
            }
            #expect(versions == [1, 2])
            // A later release adds a migration: only it runs.
            let grown = Migrator(service: "core-test", migrations: Self.migrations + [
                Migration(version: 3, name: "index", sql: ["CREATE INDEX things_colour ON things (colour)"]),
            ])
            #expect(try await grown.migrate(database, logger: TestLogger.quiet) == [3])
        }
    }

    @Test(arguments: TestDatabase.all)
    func failedMigrationLeavesNothingBehind(kind: TestDatabase) async throws {
        try await kind.withFreshDatabase { database in
            let broken = Migrator(service: "core-test", migrations: [
                Migration(version: 1, name: "half good", sql: ["CREATE TABLE half (id INTEGER)", "THIS IS NOT SQL"]),
            ])
            await #expect(throws: MigrationError.self) { try await broken.migrate(database, logger: TestLogger.quiet) }
            let fixed = Migrator(service: "core-test", migrations: [
                Migration(version: 1, name: "fixed", sql: ["CREATE TABLE half (id INTEGER)"]),
            ])
            // The table of the failed attempt was rolled back, so the fixed migration can create it.
            let applied = try await fixed.migrate(database, logger: TestLogger.quiet)
            #expect(applied == [1])
        }
    }

    @Test(arguments: TestDatabase.all)
    func replicasStartingTogetherMigrateOnce(kind: TestDatabase) async throws {
        try await kind.withFreshDatabaseURL { url in
            let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let database = try await Database.connect(url, poolSize: 2, logger: TestLogger.quiet)
                        let migrator = Migrator(service: "core-test", migrations: Self.migrations)
                        do {
                            let result = try await migrator.migrate(database, logger: TestLogger.quiet)
                            await database.shutdown()
                            return result
                        } catch {
                            await database.shutdown()
                            throw error
                        }
                    }
                }
                return try await group.reduce(into: [Int]()) { $0 += $1 }
            }
            #expect(applied.sorted() == [1, 2])
        }
    }

    @Test(arguments: TestDatabase.all)
    func transactionsCommitAndRollBack(kind: TestDatabase) async throws {
        try await kind.withFreshDatabase { database in
            try await Migrator(service: "core-test", migrations: Self.migrations).migrate(database, logger: TestLogger.quiet)
            try await database.transaction { connection in
                try await connection.raw("INSERT INTO things (id, name) VALUES (1, 'kept')").run()
            }
            struct Boom: Error {}
            await #expect(throws: Boom.self) {
                try await database.transaction { connection in
                    try await connection.raw("INSERT INTO things (id, name) VALUES (2, 'lost')").run()
                    throw Boom()
                }
            }
            // A constraint violation inside a transaction rolls back its earlier statements too.
            await #expect(throws: (any Error).self) {
                try await database.transaction { connection in
                    try await connection.raw("INSERT INTO things (id, name) VALUES (3, 'also lost')").run()
                    try await connection.raw("INSERT INTO things (id, name) VALUES (4, 'kept')").run()
                }
            }
            let names = try await database.withConnection { connection in
                try await connection.raw("SELECT name FROM things ORDER BY id").all().map { try $0.decode(column: "name", as: String.self) }
            }
            #expect(names == ["kept"])
        }
    }

    @Test(arguments: TestDatabase.all)
    func concurrentUniqueInsertsHaveOneWinner(kind: TestDatabase) async throws {
        try await kind.withFreshDatabase(poolSize: 8) { database in
            try await Migrator(service: "core-test", migrations: Self.migrations).migrate(database, logger: TestLogger.quiet)
            let wins = await withTaskGroup(of: Bool.self) { group in
                for id in 0..<20 {
                    group.addTask {
                        do {
                            try await database.transaction { connection in
                                try await connection.raw("INSERT INTO things (id, name) VALUES (\(bind: id), 'same')").run()
                            }
                            return true
                        } catch {
                            return false
                        }
                    }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(wins == 1)
        }
    }

    @Test(arguments: TestDatabase.all)
    func jobLockRunsTheBody(kind: TestDatabase) async throws {
        try await kind.withFreshDatabase { database in
            let result = try await JobLock.runExclusively("test", on: database) { connection in
                try await connection.raw("SELECT 41 + 1 AS answer").first()?.decode(column: "answer", as: Int.self)
            }
            #expect(result == 42)
        }
    }

    @Test func postgresIsReallyTestedWhenRequired() {
        // CI sets REQUIRE_POSTGRES=1: then the PostgreSQL variants above must be in the run.
        if ProcessInfo.processInfo.environment["REQUIRE_POSTGRES"] == "1" {
            #expect(TestDatabase.all.contains(.postgres))
        }
    }
}
