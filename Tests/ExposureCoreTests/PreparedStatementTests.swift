import ExposureCore
import ExposureTestSupport
import Foundation
import SQLKit
import Testing

@Suite struct PreparedStatementTests {
    static let things = Migration(version: 1, name: "create things", sql: [
        "CREATE TABLE things (id BIGINT PRIMARY KEY, name TEXT NOT NULL)",
    ])

    enum ThingsNamed: PreparedStatement {
        static let sql = "SELECT id, name FROM things WHERE name = ANY($1::TEXT[]) ORDER BY id"
    }

    enum InsertThing: PreparedStatement {
        static let sql = "INSERT INTO things (id, name) VALUES ($1, $2) RETURNING id"
    }

    static func names(_ rows: [any SQLRow]) throws -> [String] {
        try rows.map { try $0.decode(column: "name", as: String.self) }
    }

    static func prepare(_ database: Database) async throws {
        try await Migrator(service: "core-test", migrations: [things]).migrate(database, logger: TestLogger.quiet)
        try await database.withConnection { connection in
            try await connection.raw("INSERT INTO things (id, name) VALUES (1, 'one'), (2, 'two'), (3, 'three')").run()
        }
    }

    /// The PostgreSQL form and the SQLKit form answer alike, whatever the size of the list, and a statement prepared
    /// once serves every later size on its connection.
    @Test(arguments: TestDatabase.all, [true, false])
    func listStatementAnswersAlikeOnEveryDatabase(kind: TestDatabase, prepares: Bool) async throws {
        try await kind.withFreshDatabase(poolSize: 1, preparesStatements: prepares) { database in
            try await Self.prepare(database)
            for (asked, expected) in [(["two"], ["two"]), (["three", "one", "none"], ["one", "three"]), ([], []), (["one"], ["one"])] {
                let found = try await database.withConnection { connection in
                    try Self.names(try await connection.execute(
                        ThingsNamed.self, binds: [asked],
                        otherwise: "SELECT id, name FROM things WHERE name IN \(bindList: asked) ORDER BY id"
                    ))
                }
                #expect(found == expected, "asked for \(asked)")
            }
        }
    }

    /// A statement whose preparation failed (its table renamed away for a moment) runs again once the table is back.
    /// PostgresNIO would answer the failure on that connection for the connection's life, so the connection goes
    /// and the pool opens another.
    @Test(arguments: TestDatabase.all.filter { $0 == .postgres })
    func aFailedPreparationDoesNotOutliveItsCause(kind: TestDatabase) async throws {
        try await kind.withFreshDatabase(poolSize: 1, preparesStatements: true) { database in
            try await Self.prepare(database)
            let before = try await Self.backend(database)
            try await FailureInjection.withoutTable("things", in: database) {
                await #expect(throws: (any Error).self) {
                    try await database.withConnection { try await $0.execute(ThingsNamed.self, binds: [["one"]]) }
                }
            }
            let found = try await database.withConnection { try Self.names(try await $0.execute(ThingsNamed.self, binds: [["one"]])) }
            #expect(found == ["one"])
            let replaced = try await Self.backend(database)
            #expect(replaced != before)

            // In a transaction the connection stays open for the ROLLBACK and goes afterwards: the database's own
            // error comes back, not a wait for the deadline on a connection closed under the transaction.
            try await FailureInjection.withoutTable("things", in: database) {
                let error = await #expect(throws: (any Error).self) {
                    try await database.transaction { try await $0.execute(InsertThing.self, binds: [Int64(5), "five"]) }
                }
                #expect(!(error is DatabaseTimeoutError))
            }
            #expect(try await database.transaction { try await $0.execute(InsertThing.self, binds: [Int64(5), "five"]).count } == 1)
            #expect(try await Self.backend(database) != replaced)
        }
    }

    /// What running a statement raises, a constraint here, leaves its connection in the pool.
    @Test(arguments: TestDatabase.all.filter { $0 == .postgres })
    func aConstraintViolationKeepsTheConnection(kind: TestDatabase) async throws {
        try await kind.withFreshDatabase(poolSize: 1, preparesStatements: true) { database in
            try await Self.prepare(database)
            _ = try await database.withConnection { try await $0.execute(InsertThing.self, binds: [4, "four"]) }
            let before = try await Self.backend(database)
            await #expect(throws: (any Error).self) {
                try await database.withConnection { try await $0.execute(InsertThing.self, binds: [4, "four again"]) }
            }
            #expect(try await Self.backend(database) == before)
        }
    }

    /// The server process behind the pool's connection.
    static func backend(_ database: Database) async throws -> Int {
        try await database.withConnection { try await $0.raw("SELECT pg_backend_pid() AS pid").first()!.decode(column: "pid", as: Int.self) }
    }

    /// The statement is kept by name on its connection when preparing is on, and never when it is off.
    @Test(arguments: TestDatabase.all.filter { $0 == .postgres }, [true, false])
    func postgresKeepsTheStatementByNameOnlyWhenPreparing(kind: TestDatabase, prepares: Bool) async throws {
        try await kind.withFreshDatabase(poolSize: 1, preparesStatements: prepares) { database in
            try await Self.prepare(database)
            let kept = try await database.withConnection { connection in
                _ = try await connection.execute(ThingsNamed.self, binds: [["one"]])
                _ = try await connection.execute(ThingsNamed.self, binds: [["two", "three"]])
                return try await connection.raw("SELECT name, statement FROM pg_prepared_statements").all()
                    .map { (try $0.decode(column: "name", as: String.self), try $0.decode(column: "statement", as: String.self)) }
            }
            #expect(kept.map(\.1) == (prepares ? [ThingsNamed.sql] : []))
            // Within the 63 bytes PostgreSQL keeps of a name, so that no two statements can share one.
            #expect(kept.allSatisfy { $0.0.utf8.count <= 63 && $0.0.hasPrefix("ThingsNamed_") })
        }
    }

    /// PostgreSQL keeps a prepared statement across a rollback, so the transaction after a failed one (on the same
    /// connection) runs it again.
    @Test(arguments: TestDatabase.all.filter { $0 == .postgres })
    func aPreparedStatementOutlivesARolledBackTransaction(kind: TestDatabase) async throws {
        try await kind.withFreshDatabase(poolSize: 1) { database in
            try await Self.prepare(database)
            struct Refused: Error {}
            await #expect(throws: Refused.self) {
                try await database.transaction { connection in
                    _ = try await connection.execute(InsertThing.self, binds: [Int64(4), "four"])
                    throw Refused()
                }
            }
            // A duplicate key fails the statement, not the preparation: the name stays usable.
            await #expect(throws: (any Error).self) {
                try await database.transaction { connection in
                    _ = try await connection.execute(InsertThing.self, binds: [Int64(1), "again"])
                }
            }
            let inserted = try await database.transaction { connection in
                try await connection.execute(InsertThing.self, binds: [Int64(4), "four"]).count
            }
            #expect(inserted == 1)
            let names = try await database.withConnection { connection in
                try Self.names(try await connection.raw("SELECT id, name FROM things ORDER BY id").all())
            }
            #expect(names == ["one", "two", "three", "four"])
        }
    }

    @Test func sqliteRefusesAPostgresOnlyStatement() async throws {
        try await TestDatabase.sqlite.withFreshDatabase { database in
            try await Self.prepare(database)
            await #expect(throws: PreparedStatementUnsupported.self) {
                try await database.withConnection { connection in
                    _ = try await connection.execute(ThingsNamed.self, binds: [["one"]])
                }
            }
        }
    }
}
