import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresKit
import PostgresNIO
import SQLKit
import SQLiteKit
import SQLiteNIO

/// One query layer (SQLKit) over PostgreSQL or SQLite, with pooling and transactions.
///
/// Storage code writes SQL once, through `SQLDatabase`; where the dialects differ (conflict handling,
/// locking) it asks `dialect`.
public final class Database: Sendable {
    public enum Dialect: String, Sendable {
        case postgres
        case sqlite
    }

    public let dialect: Dialect
    public let url: DatabaseURL
    /// How long one `withConnection` or `transaction` may take on PostgreSQL, waiting for a connection included.
    public let operationTimeout: Duration
    private let backend: any DatabaseBackend
    private let gauges: PoolGauges
    /// How long a PostgreSQL connection may stay unused in the pool before it is closed.
    public static let defaultIdleTimeout: Duration = .seconds(10)

    private init(dialect: Dialect, url: DatabaseURL, operationTimeout: Duration, backend: any DatabaseBackend, gauges: PoolGauges) {
        self.dialect = dialect
        self.url = url
        self.operationTimeout = operationTimeout
        self.backend = backend
        self.gauges = gauges
    }

    /// Opens a pool for `url`. For PostgreSQL the first connection is made lazily; `ping()` checks it.
    ///
    /// `operationTimeout` bounds every PostgreSQL operation (see `OperationDeadline`): while the server is down,
    /// requests wait for it that long and then fail, instead of waiting without end. A PostgreSQL connection left
    /// unused for `idleTimeout` is closed (see `PostgresBackend`); SQLite keeps its few connections open.
    /// `preparesStatements` false sends a `PreparedStatement` unnamed, for a connection pooler that does not keep
    /// prepared statements. `busyTimeout` is how long an SQLite statement waits for the file's write lock, held by
    /// another connection, before it fails. `pool` names the pool in the `database_*` gauges (`PoolGauges`).
    public static func connect(
        _ url: DatabaseURL, pool: String = "default", poolSize: Int = 8, operationTimeout: Duration = .seconds(30),
        idleTimeout: Duration = Database.defaultIdleTimeout, preparesStatements: Bool = true,
        busyTimeout: Duration = .seconds(10), logger: Logger
    ) async throws -> Database {
        switch url {
        case .postgres(let text):
            let backend = try PostgresBackend(
                url: text, poolSize: poolSize, idleTimeout: idleTimeout, preparesStatements: preparesStatements, logger: logger
            )
            return Database(
                dialect: .postgres, url: url, operationTimeout: operationTimeout, backend: backend, gauges: PoolGauges(pool: pool, size: poolSize)
            )
        case .sqliteFile(let path):
            try PrivateFiles.prepareSQLiteFile(at: path)
            let size = max(1, min(poolSize, 4))
            let backend = try await SQLiteBackend(storage: .file(path: path), poolSize: size, busyTimeout: busyTimeout, logger: logger)
            return Database(dialect: .sqlite, url: url, operationTimeout: operationTimeout, backend: backend, gauges: PoolGauges(pool: pool, size: size))
        case .sqliteMemory:
            // An in-memory database lives in its one connection: a pool of one.
            let backend = try await SQLiteBackend(storage: .memory, poolSize: 1, busyTimeout: busyTimeout, logger: logger)
            return Database(dialect: .sqlite, url: url, operationTimeout: operationTimeout, backend: backend, gauges: PoolGauges(pool: pool, size: 1))
        }
    }

    /// Runs `body` on a connection from the pool (auto-commit: each statement stands alone); on PostgreSQL it
    /// fails with `DatabaseTimeoutError` after `operationTimeout`.
    public func withConnection<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let gauges = self.gauges
        gauges.asked()
        defer { gauges.ended() }
        return try await bounded { try await self.backend.withConnection { try await gauges.holding($0, body) } }
    }

    /// Runs `body` on a connection held for as long as it takes, without a deadline: for a lock held while a long
    /// job runs (its own queries are bounded as usual).
    public func withHeldConnection<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let gauges = self.gauges
        gauges.asked()
        defer { gauges.ended() }
        return try await backend.withConnection { try await gauges.holding($0, body) }
    }

    /// SQLite has no network to lose and its own busy timeout; PostgreSQL operations get the deadline.
    private func bounded<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        switch dialect {
        case .postgres: try await OperationDeadline.run(operationTimeout, operation)
        case .sqlite: try await operation()
        }
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    ///
    /// On SQLite every transaction of this process runs on one connection kept for them, so transactions queue
    /// here, each woken the moment the one before it ends, instead of sleeping in SQLite's busy handler for the
    /// file's write lock (see `SQLiteBackend`). The transaction takes that lock at once (`BEGIN IMMEDIATE`), so a
    /// writer of another process (an operator's command) waits for it instead of failing with a lock upgrade error.
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let (dialect, gauges) = (self.dialect, self.gauges)
        gauges.asked()
        defer { gauges.ended() }
        return try await bounded {
            try await self.backend.withTransactionConnection { connection in
                try await gauges.holding(connection) { connection in
                    try await connection.raw(dialect == .sqlite ? "BEGIN IMMEDIATE" : "BEGIN").run()
                    do {
                        let result = try await body(connection)
                        try await connection.raw("COMMIT").run()
                        return result
                    } catch {
                        try? await connection.raw("ROLLBACK").run()
                        throw error
                    }
                }
            }
        }
    }

    /// A cheap round trip, for readiness checks.
    public func ping() async throws {
        try await withConnection { try await $0.raw("SELECT 1").run() }
    }

    public func shutdown() async {
        await backend.shutdown()
    }
}

protocol DatabaseBackend: Sendable {
    func withConnection<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T
    func withTransactionConnection<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T
    func shutdown() async
}

// MARK: - PostgreSQL

/// PostgresNIO's `PostgresClient` pool, run by a task this backend owns.
final class PostgresBackend: DatabaseBackend {
    private let client: PostgresClient
    private let runTask: Task<Void, Never>
    private let logger: Logger
    private let preparesStatements: Bool

    init(url: String, poolSize: Int, idleTimeout: Duration, preparesStatements: Bool, logger: Logger) throws {
        let sqlConfiguration = try SQLPostgresConfiguration(url: url)
        let core = sqlConfiguration.coreConfiguration
        guard let host = core.host, let port = core.port else {
            throw ConfigurationError(variable: "DATABASE_URL", reason: "must name a host and port")
        }
        let tls: PostgresClient.Configuration.TLS =
            core.tls.isEnforced ? .require(.makeClientConfiguration())
            : core.tls.isAllowed ? .prefer(.makeClientConfiguration()) : .disable
        var configuration = PostgresClient.Configuration(
            host: host,
            port: port,
            username: core.username,
            password: core.password,
            database: core.database,
            tls: tls
        )
        configuration.options.maximumConnections = poolSize
        // Each time a connection goes back to the pool, the pool starts a `Task.sleep` for its idle timeout (and one
        // for keep-alive), and the next lease cancels it. On Linux a cancelled sleep keeps its timer and its task
        // until the full duration has passed, so under load the process carries (returns per second) × (duration)
        // dead timers. A short idle timeout and no keep-alive keep that small: a connection left idle is closed
        // rather than probed. A minimum above 0, which would need neither, crashes PostgresNIO 1.33.2 when the
        // server restarts (docs/decisions.md).
        configuration.options.minimumConnections = 0
        configuration.options.connectionIdleTimeout = idleTimeout
        configuration.options.keepAliveBehavior = nil
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        self.preparesStatements = preparesStatements
        self.runTask = Task { await client.run() }
    }

    func withConnection<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await client.withConnection { connection in
            let session = PostgresSession(
                connection: connection,
                base: connection.sql(queryLogLevel: nil, logger: self.logger),
                preparesStatements: self.preparesStatements
            )
            do {
                let result = try await body(session)
                if session.retirement.isRetired { try? await connection.close() }
                return result
            } catch {
                if session.retirement.isRetired { try? await connection.close() }
                throw error
            }
        }
    }

    /// PostgreSQL locks rows, not the database: transactions need no connection of their own.
    func withTransactionConnection<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await withConnection(body)
    }

    func shutdown() async {
        runTask.cancel()
        _ = await runTask.value
    }
}

// MARK: - SQLite

/// A small pool of SQLite connections: one kept for transactions, the others for single statements. Files use WAL,
/// so reads do not wait for writes.
///
/// SQLite lets one connection write at a time, and a connection that finds the file's write lock taken sleeps in
/// `busy_timeout` (1, 2, 5, 10 ms and longer) however soon the lock is free again. A transaction holds the lock
/// from `BEGIN IMMEDIATE` to `COMMIT`, across several round trips to this thread pool and, for a submission, a call
/// to another service: other transactions of the process that met it slept, and registrations with a median of
/// 20 ms had a p99 of 80–140 ms (docs/benchmarks.md, eighteenth round). On one connection they queue in the process
/// instead, and each starts the moment the one before it ends. Single statements, writes among them, hold the lock
/// for one step only and keep the other connections: put through the one connection as well, they would wait for
/// each other's round trips, and TAN issuance lost a quarter of its throughput. `busy_timeout` is left for what
/// still meets at the lock: a statement and a transaction, and other processes on the same file.
///
/// SQLite calls block a thread, so each backend has a thread per connection of its own: a waiting connection can
/// never starve the one holding the lock, as it could on NIO's small shared pool.
final class SQLiteBackend: DatabaseBackend {
    private let statements: AsyncPool<SQLiteConnection>
    private let transactions: AsyncPool<SQLiteConnection>
    private let connections: [SQLiteConnection]
    private let threadPool: NIOThreadPool
    private let logger: Logger

    init(storage: SQLiteConnection.Storage, poolSize: Int, busyTimeout: Duration, logger: Logger) async throws {
        let threadPool = NIOThreadPool(numberOfThreads: poolSize)
        threadPool.start()
        var opened: [SQLiteConnection] = []
        do {
            for _ in 0..<poolSize {
                let connection = try await SQLiteConnection.open(
                    storage: storage, threadPool: threadPool, logger: logger, on: MultiThreadedEventLoopGroup.singleton.any()
                )
                opened.append(connection)
                _ = try await connection.query("PRAGMA busy_timeout = \(Int(busyTimeout / .milliseconds(1)))")
                _ = try await connection.query("PRAGMA foreign_keys = ON")
                // Temporary tables and sorts in memory, not in files under /var/tmp, which a container's root file
                // system may not let it write: the largest is the distribution's table of placements, a few MB.
                _ = try await connection.query("PRAGMA temp_store = MEMORY")
                if case .file = storage {
                    try await Self.enableWAL(connection)
                    _ = try await connection.query("PRAGMA synchronous = NORMAL")
                }
            }
        } catch {
            // A connection must be closed before it is released; leave nothing open behind a failed start.
            for connection in opened { try? await connection.close().get() }
            try? await threadPool.shutdownGracefully()
            throw error
        }
        self.threadPool = threadPool
        self.connections = opened
        if opened.count == 1 {
            // An in-memory database lives in its one connection, which serves everything.
            let only = AsyncPool(opened)
            (self.statements, self.transactions) = (only, only)
        } else {
            (self.statements, self.transactions) = (AsyncPool(Array(opened.dropFirst())), AsyncPool([opened[0]]))
        }
        self.logger = logger
    }

    /// Switching to WAL needs a moment alone with the file; processes opening it together take turns.
    private static func enableWAL(_ connection: SQLiteConnection) async throws {
        var attempt = 0
        while true {
            do {
                _ = try await connection.query("PRAGMA journal_mode = WAL")
                return
            } catch {
                attempt += 1
                guard attempt < 50 else { throw error }
                try await Task.sleep(for: .milliseconds(20 * attempt))
            }
        }
    }

    func withConnection<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await Self.with(statements, body)
    }

    func withTransactionConnection<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await Self.with(transactions, body)
    }

    private static func with<T: Sendable>(
        _ pool: AsyncPool<SQLiteConnection>, _ body: @Sendable (any SQLDatabase) async throws -> T
    ) async throws -> T {
        let connection = try await pool.acquire()
        defer { pool.release(connection) }
        return try await body(connection.sql(queryLogLevel: nil))
    }

    func shutdown() async {
        // The future-based close runs even when the calling task is cancelled (the async one would not, and a
        // connection released unclosed is a crash in SQLiteNIO).
        for connection in connections {
            try? await connection.close().get()
        }
        try? await threadPool.shutdownGracefully()
    }
}

/// A fixed set of resources handed out one at a time; callers wait (cancellably) when all are in use.
final class AsyncPool<Resource: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var idle: [Resource]
    private var waiters: [(id: UInt64, continuation: CheckedContinuation<Resource, any Error>)] = []
    private var nextWaiterID: UInt64 = 0

    init(_ resources: [Resource]) { self.idle = resources }

    func acquire() async throws -> Resource {
        let id: UInt64 = lock.withLock {
            nextWaiterID += 1
            return nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                lock.lock()
                if let resource = idle.popLast() {
                    lock.unlock()
                    continuation.resume(returning: resource)
                } else {
                    waiters.append((id, continuation))
                    lock.unlock()
                }
            }
        } onCancel: {
            lock.lock()
            if let index = waiters.firstIndex(where: { $0.id == id }) {
                let waiter = waiters.remove(at: index)
                lock.unlock()
                waiter.continuation.resume(throwing: CancellationError())
            } else {
                lock.unlock()
            }
        }
    }

    func release(_ resource: Resource) {
        lock.lock()
        if !waiters.isEmpty {
            let waiter = waiters.removeFirst()
            lock.unlock()
            waiter.continuation.resume(returning: resource)
        } else {
            idle.append(resource)
            lock.unlock()
        }
    }
}
