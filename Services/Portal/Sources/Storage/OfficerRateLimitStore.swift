import ExposureCore
import Foundation
import SQLKit

/// One teleTAN per officer per interval, in `portal_rate_limits` so that every replica enforces the same limit.
public struct OfficerRateLimitStore: Sendable {
    public enum Claim: Sendable, Equatable {
        /// The officer may issue now; `until` is what was stored, needed to give the slot back.
        case granted(until: Int64)
        /// Not before this time (Unix seconds).
        case refused(nextAllowedAt: Int64)
    }

    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Takes the officer's slot atomically: of two concurrent claims only one is granted (the upsert only
    /// overwrites a row whose time has come).
    public func claim(officer: String, now: Date, interval: Duration) async throws -> Claim {
        let nowSeconds = now.epochSeconds
        let until = nowSeconds + Int64(interval.seconds.rounded(.up))
        return try await database.withConnection { connection in
            let granted = try await connection.raw("""
                INSERT INTO portal_rate_limits (officer, next_allowed_at) VALUES (\(bind: officer), \(bind: until))
                ON CONFLICT (officer) DO UPDATE SET next_allowed_at = excluded.next_allowed_at
                WHERE portal_rate_limits.next_allowed_at <= \(bind: nowSeconds)
                RETURNING officer
                """).first() != nil
            if granted { return .granted(until: until) }
            let row = try await connection.raw("SELECT next_allowed_at FROM portal_rate_limits WHERE officer = \(bind: officer)").first()
            return .refused(nextAllowedAt: try row?.decode(column: "next_allowed_at", as: Int64.self) ?? until)
        }
    }

    /// Gives a granted slot back when no teleTAN came of it (verification refused or was down): the
    /// officer did nothing wrong and may try again at once.
    public func release(officer: String, claimed until: Int64, now: Date) async throws {
        try await database.withConnection { connection in
            try await connection.raw("""
                UPDATE portal_rate_limits SET next_allowed_at = \(bind: now.epochSeconds)
                WHERE officer = \(bind: officer) AND next_allowed_at = \(bind: until)
                """).run()
        }
    }

    public func deleteExpired(now: Date) async throws -> Int {
        try await database.withConnection { connection in
            try await connection.raw("DELETE FROM portal_rate_limits WHERE next_allowed_at <= \(bind: now.epochSeconds) RETURNING officer").all().count
        }
    }
}
