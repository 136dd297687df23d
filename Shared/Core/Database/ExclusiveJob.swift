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
        _ body: @Sendable () async throws -> T
    ) async throws -> T? {
        switch database.dialect {
        case .postgres:
            let key = Migrator.lockKey(for: "exclusive." + name)
            return try await database.withHeldConnection { connection in
                let row = try await connection.raw("SELECT pg_try_advisory_lock(\(bind: key)) AS locked").first()
                guard let locked = try row?.decode(column: "locked", as: Bool.self), locked else { return nil }
                do {
                    let result = try await body()
                    _ = try? await connection.raw("SELECT pg_advisory_unlock(\(bind: key))").run()
                    return result
                } catch {
                    _ = try? await connection.raw("SELECT pg_advisory_unlock(\(bind: key))").run()
                    throw error
                }
            }
        case .sqlite:
            guard let lock = try FileLock(lockFile) else { return nil }
            defer { lock.release() }
            return try await body()
        }
    }
}

/// An exclusive, non-blocking `flock(2)` on a file; released on `release()` or when the process ends.
public final class FileLock: Sendable {
    private let descriptor: Int32

    /// nil when another holder has the lock.
    public init?(_ url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
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
