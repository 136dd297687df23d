import ExposureCore
import Foundation
import PortalDomain
import SQLKit

/// Sign-in attempts per user name in the current window (`portal_sign_in_attempts`), shared by every replica.
/// Names are stored as SHA-256: what people type into the name field (sometimes a password) is not kept.
public struct SignInAttemptStore: Sendable {
    /// The attempt just counted: its number within the window, and when the window opened (Unix seconds).
    public struct Attempt: Sendable, Equatable {
        public var number: Int
        public var windowStart: Int64
    }

    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Counts one attempt atomically; a window that ended is replaced by a new one opening now.
    public func count(name: String, now: Date, throttle: SignInThrottle) async throws -> Attempt {
        let nameHash = SecretHash.sha256Hex(name)
        let nowSeconds = now.epochSeconds
        let ended = throttle.expiredWindowStart(now: now)
        return try await database.withConnection { connection in
            let row = try await connection.raw("""
                INSERT INTO portal_sign_in_attempts (name_hash, attempts, window_start) VALUES (\(bind: nameHash), 1, \(bind: nowSeconds))
                ON CONFLICT (name_hash) DO UPDATE SET
                    attempts = CASE WHEN portal_sign_in_attempts.window_start <= \(bind: ended) THEN 1 ELSE portal_sign_in_attempts.attempts + 1 END,
                    window_start = CASE WHEN portal_sign_in_attempts.window_start <= \(bind: ended) THEN \(bind: nowSeconds) ELSE portal_sign_in_attempts.window_start END
                RETURNING attempts, window_start
                """).first()
            // An upsert with RETURNING yields its row whichever branch it took.
            guard let row else { throw NoRowReturned() }
            return Attempt(
                number: try row.decode(column: "attempts", as: Int.self),
                windowStart: try row.decode(column: "window_start", as: Int64.self)
            )
        }
    }

    /// Closes the name's window: after a successful sign-in, or when an administrator enables the account or
    /// sets a new password, so that the officer need not wait out attempts spent on the old one.
    public func reset(name: String) async throws {
        try await database.withConnection { connection in
            try await connection.raw("DELETE FROM portal_sign_in_attempts WHERE name_hash = \(bind: SecretHash.sha256Hex(name))").run()
        }
    }

    public func deleteExpired(now: Date, throttle: SignInThrottle) async throws -> Int {
        try await database.withConnection { connection in
            try await connection.raw("""
                DELETE FROM portal_sign_in_attempts WHERE window_start <= \(bind: throttle.expiredWindowStart(now: now)) RETURNING name_hash
                """).all().count
        }
    }
}

private struct NoRowReturned: Error {}
