import PostgresNIO
import SQLKit
import Synchronization

/// A column type of a streamed query: PostgresNIO decodes it from PostgreSQL's wire format, SQLKit from SQLite's
/// values (`Int32`, `Int64`, `Data`, and optionals of them).
public typealias StreamedColumn = PostgresDecodable & Decodable & Sendable

/// The columns of one streamed row, read in the order the query selects them.
public struct ColumnReader {
    private enum Row {
        case postgres(PostgresRow.Iterator)
        case portable(any SQLRow, names: [String], index: Int)
    }

    private var row: Row

    init(_ row: PostgresRow) { self.row = .postgres(row.makeIterator()) }
    init(_ row: any SQLRow) { self.row = .portable(row, names: row.allColumns, index: 0) }

    /// The next column's value.
    public mutating func next<Value: StreamedColumn>(_: Value.Type = Value.self) throws -> Value {
        switch row {
        case .postgres(var cells):
            guard let cell = cells.next() else { throw MissingColumn() }
            row = .postgres(cells)
            return try cell.decode(Value.self)
        case .portable(let sqlRow, let names, let index):
            guard index < names.count else { throw MissingColumn() }
            row = .portable(sqlRow, names: names, index: index + 1)
            return try sqlRow.decode(column: names[index], as: Value.self)
        }
    }

    /// A row read past its last column: the query selects fewer columns than its reader reads.
    struct MissingColumn: Error {}
}

extension SQLDatabase {
    /// Runs `Statement` with `binds` on PostgreSQL, or `portable` on SQLite, and hands each row to `body` as the
    /// rows arrive.
    ///
    /// For queries that return many rows, such as the distribution's read of a million keys. `SQLRow` finds each
    /// column by name and decodes it through `Decodable`, with a coding path built for every value: on PostgreSQL
    /// that was about 8 µs a row of seven columns, half the CPU of a first distribution run (docs/benchmarks.md,
    /// twenty-seventh round). Here PostgresNIO decodes each column by position and type directly. SQLite's rows
    /// still go through `SQLRow`, whose decoding there costs less.
    public func forEachRow<Statement: PreparedStatement>(
        _: Statement.Type, binds: [any PreparedBind], otherwise portable: @autoclosure () -> SQLQueryString,
        _ body: @escaping @Sendable (inout ColumnReader) throws -> Void
    ) async throws {
        if let session = self as? PostgresSession {
            try await session.forEachRow(Statement.self, binds: binds) { row in
                var columns = ColumnReader(row)
                try body(&columns)
            }
            return
        }
        // SQLKit hands rows over from the connection's thread and cannot be told to stop: the first error is kept
        // and thrown once the statement is done.
        let failure = FirstError()
        try await raw(portable()).run { row in
            guard !failure.isSet else { return }
            do {
                var columns = ColumnReader(row)
                try body(&columns)
            } catch {
                failure.set(error)
            }
        }
        try failure.throwIfSet()
    }
}

extension PostgresSession {
    /// Runs `Statement` with `binds` and hands each row to `body` as PostgresNIO delivers it.
    func forEachRow<Statement: PreparedStatement>(
        _: Statement.Type, binds: [any PreparedBind], _ body: (PostgresRow) throws -> Void
    ) async throws {
        var bindings = PostgresBindings(capacity: binds.count)
        for bind in binds { try bindings.append(bind) }
        if preparesStatements {
            do {
                for try await row in try await connection.execute(Named<Statement>(bindings: bindings), logger: logger) {
                    try body(row)
                }
            } catch let error as PSQLError where Self.mayHaveFailedPreparation(error) {
                retirement.retire()
                throw error
            }
        } else {
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: Statement.sql, binds: bindings), logger: logger) {
                try body(row)
            }
        }
    }
}

/// The first error of a callback that cannot throw.
private final class FirstError: Sendable {
    private let error = Mutex<(any Error)?>(nil)

    var isSet: Bool { error.withLock { $0 != nil } }

    func set(_ error: any Error) {
        self.error.withLock { $0 = $0 ?? error }
    }

    func throwIfSet() throws {
        if let error = error.withLock({ $0 }) { throw error }
    }
}
