import ExposureCore
import ExposureTestSupport
import Foundation
import Synchronization
import Testing

/// Rows streamed with typed columns: the same values on both databases, NULL as nil, and errors thrown rather than
/// swallowed.
@Suite struct RowStreamTests {
    static let keys = Migration(version: 1, name: "create keys", statements: { dialect in
        ["CREATE TABLE keys (id INTEGER PRIMARY KEY, data \(dialect == .postgres ? "BYTEA" : "BLOB") NOT NULL, hour BIGINT)"]
    })

    enum SelectKeys: PreparedStatement {
        static let sql = "SELECT id, data, hour FROM keys WHERE id >= $1 ORDER BY id"
    }

    struct Row: Equatable {
        var id: Int32
        var data: Data
        var hour: Int64?
    }

    static func withKeys(_ kind: TestDatabase, _ body: (Database) async throws -> Void) async throws {
        try await kind.withFreshDatabase(poolSize: 1) { database in
            try await Migrator(service: "core-test", migrations: [keys]).migrate(database, logger: TestLogger.quiet)
            try await database.withConnection { connection in
                for (id, hour) in [(1, Int64?.some(490_000)), (2, nil), (3, Int64(5_000_000_000))] {
                    try await connection.raw("INSERT INTO keys (id, data, hour) VALUES (\(bind: id), \(bind: Data([UInt8(id), 0xFF])), \(bind: hour))").run()
                }
            }
            try await body(database)
        }
    }

    @Test(arguments: TestDatabase.all)
    func rowsArriveAsTypedColumnsInOrder(kind: TestDatabase) async throws {
        try await Self.withKeys(kind) { database in
            let rows = Collected<Row>()
            try await database.withConnection { connection in
                try await connection.forEachRow(SelectKeys.self, binds: [Int64(1)], otherwise: "SELECT id, data, hour FROM keys WHERE id >= \(bind: 1) ORDER BY id") { columns in
                    let row = Row(id: try columns.next(), data: try columns.next(), hour: try columns.next())
                    rows.append(row)
                }
            }
            #expect(rows.all == [
                Row(id: 1, data: Data([1, 0xFF]), hour: 490_000),
                Row(id: 2, data: Data([2, 0xFF]), hour: nil),
                Row(id: 3, data: Data([3, 0xFF]), hour: 5_000_000_000),
            ])
        }
    }

    /// Reading past the last column, a value of the wrong type, or an error of the caller's: each fails the call.
    @Test(arguments: TestDatabase.all)
    func errorsFailTheCall(kind: TestDatabase) async throws {
        try await Self.withKeys(kind) { database in
            try await database.withConnection { connection in
                func stream(_ body: @escaping @Sendable (inout ColumnReader) throws -> Void) async throws {
                    try await connection.forEachRow(SelectKeys.self, binds: [Int64(2)], otherwise: "SELECT id, data, hour FROM keys WHERE id >= \(bind: 2) ORDER BY id", body)
                }
                await #expect(throws: (any Error).self) {
                    try await stream { columns in
                        for _ in 0..<4 { _ = try columns.next(Int64?.self) }
                    }
                }
                // The second row's hour is NULL.
                await #expect(throws: (any Error).self) {
                    try await stream { columns in
                        _ = try columns.next(Int32.self)
                        _ = try columns.next(Data.self)
                        _ = try columns.next(Int64.self)
                    }
                }
                struct Stop: Error {}
                await #expect(throws: Stop.self) {
                    try await stream { _ in throw Stop() }
                }
                // The connection still serves the next statement.
                let count = Collected<Int>()
                try await stream { _ in count.append(1) }
                #expect(count.all.count == 2)
            }
        }
    }
}

/// Values a callback collects from whichever thread calls it.
final class Collected<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    func append(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
}
