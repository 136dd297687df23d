import Foundation
import SQLKit

/// "Only one replica at a time" for long jobs (distribution) that must not hold a database transaction open.
///
/// PostgreSQL: a session advisory lock, tried without waiting, on a connection held for the length of the job
/// (the job itself uses other pooled connections). SQLite: an exclusive `flock` on a file beside the data, which
/// also keeps two processes on one machine apart. A replica that does not get the lock skips the round (nil).
public enum ExclusiveJob {
    public static func run<T: Sendable>(
        _ name: String,
        on database: Database,
        lockFile: URL,
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T? {
        switch database.dialect {
        case .postgres:
            return try await runHoldingAdvisoryLock(Migrator.lockKey(for: "exclusive." + name), on: database, body)
        case .sqlite:
            guard let lock = try FileLock(lockFile) else { return nil }
            defer { lock.release() }
            return try await body()
        }
    }

    /// The job itself has no deadline, but getting a connection and the lock has `operationTimeout`, and so has
    /// giving the lock back. Without one, a lease or a query that PostgresNIO never answers after a server restart
    /// stops the job for good: no round runs again, and the service cannot shut down, as it waits for the job
    /// (seen in `DatabaseRestartTests`; docs/benchmarks.md, sixth round). An attempt given up on still ends: if it
    /// gets the lock later, it gives it back without running the job.
    private static func runHoldingAdvisoryLock<T: Sendable>(
        _ key: Int64, on database: Database, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T? {
        let limit = database.operationTimeout
        return try await OperationDeadline.run(limit, untilLifted: { deadline in
            try await database.withHeldConnection { connection in
                let row = try await connection.raw("SELECT pg_try_advisory_lock(\(bind: key)) AS locked").first()
                let locked = try row?.decode(column: "locked", as: Bool.self) ?? false
                guard deadline.lift(), locked else {
                    if locked { await unlock(key, on: connection, within: limit) }
                    return nil
                }
                do {
                    let result = try await body()
                    await unlock(key, on: connection, within: limit)
                    return result
                } catch {
                    await unlock(key, on: connection, within: limit)
                    throw error
                }
            }
        })
    }

    private static func unlock(_ key: Int64, on connection: any SQLDatabase, within limit: Duration) async {
        // A connection lost meanwhile took its session's lock with it; one that never answers is left behind.
        // OperationDeadline runs the query in a task of its own, so it also runs for an attempt that was cancelled
        // at its deadline and got the lock late.
        _ = try? await OperationDeadline.run(limit) {
            try await connection.raw("SELECT pg_advisory_unlock(\(bind: key))").run()
        }
    }
}

/// An exclusive, non-blocking `flock(2)` on a file; released on `release()` or when the process ends.
public final class FileLock: Sendable {
    private let descriptor: Int32

    /// nil when another holder has the lock.
    public init?(_ url: URL) throws {
        try PrivateFiles.createFolder(url.deletingLastPathComponent().path)
        let descriptor = open(url.path, O_CREAT | O_RDWR, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path]) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    public func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
