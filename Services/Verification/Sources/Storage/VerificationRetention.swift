import ExposureCore
import Foundation
import SQLKit
import VerificationDomain

/// The hourly clean-up: sessions and TANs after 21 days, expired teleTANs (once out of the rate-limit window),
/// used keys after 60 days, the one-time codes of other app families once expired. A code an officer issued stays,
/// dead, as long as its officer may see its status (`IssuedCode.listedDays`). Guarded so that one replica does it per
/// round.
public struct VerificationRetention: Sendable {
    let database: Database
    let lifetimes: Lifetimes
    let rateLimitWindow: Duration

    public init(database: Database, lifetimes: Lifetimes, rateLimitWindow: Duration) {
        self.database = database
        self.lifetimes = lifetimes
        self.rateLimitWindow = rateLimitWindow
    }

    /// Returns the number of rows deleted per table.
    @discardableResult
    public func run(now: Date) async throws -> [String: Int] {
        let sessionCutoff = now.adding(.zero - lifetimes.sessionRetention).epochSeconds
        let usedKeyCutoff = now.adding(.zero - lifetimes.usedKeyRetention).epochSeconds
        let teleTANCutoff = now.adding(.zero - rateLimitWindow).epochSeconds
        // Counters live as long as their window: the issuers' daily ones a day.
        let counterCutoff = now.adding(.zero - max(rateLimitWindow, .seconds(86400))).epochSeconds
        let timestamp = now.epochSeconds
        // Officers' codes (those with an officer) are listed with their status for this long after their issue.
        let listedCutoff = timestamp - IssuedCode.listedDays * 86400
        let counts = try await JobLock.runExclusively("verification.retention", on: database) { connection in
            [
                "tans": try await connection.raw("DELETE FROM tans WHERE created_at < \(bind: sessionCutoff) RETURNING tan_hash").all().count,
                "app_sessions": try await connection.raw("DELETE FROM app_sessions WHERE created_at < \(bind: sessionCutoff) RETURNING source").all().count,
                "teletans": try await connection.raw("""
                    DELETE FROM teletans WHERE valid_until < \(bind: timestamp) AND created_at < \(bind: teleTANCutoff) \
                    AND (issued_by IS NULL OR created_at < \(bind: listedCutoff)) RETURNING type
                    """).all().count,
                "used_keys": try await connection.raw("DELETE FROM used_keys WHERE used_at < \(bind: usedKeyCutoff) RETURNING used_at").all().count,
                // Dead codes of the other app families, used or not: an expired code answers as an unknown one, and a
                // used one could not be redeemed again anyway. (Their issuance counts in `teletan_issuance_counts`.)
                "one_time_codes": try await connection.raw("""
                    DELETE FROM one_time_codes WHERE valid_until < \(bind: timestamp) \
                    AND (issued_by IS NULL OR issued_at < \(bind: listedCutoff)) RETURNING kind
                    """).all().count,
                // Counters of windows that ended: only the current window's are read.
                "teletan_issuance_counts": try await connection.raw("""
                    DELETE FROM teletan_issuance_counts WHERE window_start < \(bind: counterCutoff) RETURNING scope
                    """).all().count,
            ]
        }
        return counts ?? [:]
    }
}
