import Logging
import PostgresKit
import PostgresNIO
import SQLKit
import Synchronization

/// A value a prepared statement binds: a type PostgresNIO encodes itself (integers, strings, `Bool`, `ByteBuffer`
/// and arrays of them). A nil is not one: the statement's parameter types are fixed when it is first prepared.
public typealias PreparedBind = PostgresEncodable & Sendable

/// A hot PostgreSQL statement, parsed and planned once per connection and from then on only bound and executed.
///
/// SQLKit sends every statement unnamed, and PostgreSQL parses, analyses and plans an unnamed statement on every
/// execution: more than a quarter of its CPU during submissions (docs/benchmarks.md, twelfth round). A statement
/// that runs for every request, and whose text never changes (an array bind in place of an `IN (…)` list of
/// varying length), is declared as a type conforming to this protocol and run with
/// `SQLDatabase.execute(_:binds:)`. Its rows decode through `SQLRow`, as SQLKit's do, so the code that reads them
/// is the same for both dialects; SQLite keeps its SQLKit form of the statement.
///
/// With `DATABASE_PREPARED_STATEMENTS=false` (a connection pooler that does not keep prepared statements) the same
/// text is sent unnamed.
public protocol PreparedStatement {
    /// PostgreSQL's text, with `$1`, `$2`… for the binds.
    static var sql: String { get }
}

extension SQLDatabase {
    /// Runs `Statement` with `binds` (in the order of its `$n`) on a PostgreSQL connection of `Database`.
    public func execute<Statement: PreparedStatement>(_: Statement.Type, binds: [any PreparedBind]) async throws -> [any SQLRow] {
        guard let session = self as? PostgresSession else { throw PreparedStatementUnsupported(statement: "\(Statement.self)") }
        return try await session.execute(Statement.self, binds: binds)
    }

    /// Runs `Statement` with `binds` on PostgreSQL, and `portable`, the same statement in SQLKit's form, on SQLite.
    public func execute<Statement: PreparedStatement>(
        _: Statement.Type, binds: [any PreparedBind], otherwise portable: @autoclosure () -> SQLQueryString
    ) async throws -> [any SQLRow] {
        if let session = self as? PostgresSession {
            return try await session.execute(Statement.self, binds: binds)
        }
        return try await raw(portable()).all()
    }
}

/// A prepared statement was run on a connection that is not PostgreSQL's: a bug in the storage code's dialect switch.
public struct PreparedStatementUnsupported: Error, CustomStringConvertible {
    public let statement: String
    public var description: String { "\(statement) is a PostgreSQL statement and needs a PostgreSQL connection" }
}

/// A PostgreSQL connection leased from the pool: SQLKit's view of it, which can also run prepared statements.
struct PostgresSession: SQLDatabase {
    let connection: PostgresConnection
    /// PostgresKit's `SQLDatabase` over the same connection, for everything that is not prepared.
    let base: any SQLDatabase
    /// False sends a `PreparedStatement`'s text unnamed, as SQLKit does.
    let preparesStatements: Bool
    /// Whether the connection is to be closed when its lease ends, instead of going back to the pool.
    let retirement = ConnectionRetirement()

    var logger: Logger { base.logger }
    var eventLoop: any EventLoop { base.eventLoop }
    var version: (any SQLDatabaseReportedVersion)? { base.version }
    var dialect: any SQLDialect { base.dialect }
    var queryLogLevel: Logger.Level? { base.queryLogLevel }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        base.execute(sql: query, onRow)
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try await base.execute(sql: query, onRow)
    }

    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await closure(self)
    }

    func execute<Statement: PreparedStatement>(_: Statement.Type, binds: [any PreparedBind]) async throws -> [any SQLRow] {
        var rows: [any SQLRow] = []
        try await forEachRow(Statement.self, binds: binds) { rows.append($0.sql()) }
        return rows
    }
}

extension PostgresSession {
    /// Whether `error` may have come from preparing a statement rather than from running it. PostgresNIO keeps a
    /// failed preparation and answers every later use of that statement on the connection with the same error,
    /// however the database recovers (a table locked or renamed for a moment, a cancelled query): the connection
    /// is of no more use for it. What running a prepared statement raises is bad data (SQLSTATE class 22), a
    /// constraint (23), a serialization failure or deadlock (40) or a trigger's exception (P0), and leaves the
    /// connection sound; anything else, a broken connection included, may be a failed preparation.
    static func mayHaveFailedPreparation(_ error: PSQLError) -> Bool {
        guard let state = error.serverInfo?[.sqlState] else { return true }
        return !["22", "23", "40", "P0"].contains(String(state.prefix(2)))
    }
}

/// Marks a leased connection for closing once its lease ends. Closed at once, the connection would hang the
/// statements its holder still sends (a transaction's ROLLBACK waited for `DATABASE_TIMEOUT`); closed at the end
/// of the lease, it leaves the pool, which opens another in its place.
final class ConnectionRetirement: Sendable {
    private let retired = Mutex(false)

    func retire() {
        retired.withLock { $0 = true }
    }

    var isRetired: Bool { retired.withLock { $0 } }
}

/// The names of the statement types run so far, each made once.
private let statementNames = Memo<ObjectIdentifier, String>()

/// PostgresNIO's form of a `PreparedStatement`: it prepares the statement on a connection's first use of its name
/// and keeps it for the connection's life.
struct Named<Statement: PreparedStatement>: PostgresPreparedStatement {
    typealias Row = PostgresRow
    /// The type's name and a digest of the text. PostgreSQL keeps the first 63 bytes of a statement name, and a
    /// private type's full Swift name is longer; two statements that shared a name would run each other's text.
    /// Worked out once per type: a generic type has no stored statics, and hashing the text on every execution
    /// would put a SHA-256 on the hot path.
    static var name: String {
        statementNames.value(for: ObjectIdentifier(Statement.self)) {
            "\(String(describing: Statement.self).prefix(40))_\(SecretHash.sha256Hex(Statement.sql).prefix(16))"
        }
    }
    static var sql: String { Statement.sql }

    let bindings: PostgresBindings

    func makeBindings() -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
}
