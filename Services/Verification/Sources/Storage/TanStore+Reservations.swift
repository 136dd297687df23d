import ExposureCore
import Foundation
import SQLKit
import VerificationDomain

/// The two-phase redemption: an upload reserves its TAN, stores its keys as pending, then confirms the reservation,
/// which spends the TAN (openapi/verification.yaml, `/version/v1/tans/reserve`, `confirm`, `release`).
///
/// A reservation is the TAN row's `redemption_key` (the upload's key) with `reserved_until` while `redeemed_at` is
/// NULL. Every step is one conditional UPDATE on that row, so the database decides between concurrent uploads, on any
/// replica: one key holds a TAN at a time; a confirmation succeeds only while its lease runs, and a release of a
/// run-out lease (the submission service's recovery) makes a later confirmation impossible. Either the upload's keys
/// are published with the TAN spent, or the TAN is free again: never both lost.
extension TanStore {
    /// One TAN an upload wants to hold.
    public struct ReservationRequest: Sendable {
        public let tanHash: String
        public let key: String

        public init(tanHash: String, key: String) {
            self.tanHash = tanHash
            self.key = key
        }
    }

    /// Holds each TAN for its key (the first place's, when a TAN is asked for twice) and answers in the batch's order.
    public func reserve(_ requests: [ReservationRequest], now: Date) async throws -> [TANReservationOutcome] {
        guard !requests.isEmpty else { return [] }
        let timestamp = now.epochSeconds, until = now.adding(lease).epochSeconds
        let hashes = requests.map(\.tanHash), keys = requests.map(\.key)
        return try await database.withConnection { connection in
            let rows = try await connection.execute(
                ReserveUpdate.self, binds: [timestamp, hashes, keys, until],
                otherwise: Self.sqliteReserve(hashes: hashes, keys: keys, timestamp: timestamp, until: until)
            )
            var held: [String: (key: String, tan: RedeemedTAN)] = [:]
            for row in rows {
                guard let tan = try Self.redeemedTAN(row) else { continue }
                held[try row.decode(column: "tan_hash", as: String.self)] = (try row.decode(column: "redemption_key", as: String.self), tan)
            }
            let unresolved = requests.filter { held[$0.tanHash]?.key != $0.key }.map(\.tanHash)
            let states = unresolved.isEmpty ? [:] : try await Self.states(ofTANs: unresolved, on: connection)
            return requests.map { request in
                if let holder = held[request.tanHash], holder.key == request.key { return .reserved(holder.tan) }
                return Self.outcome(of: states[request.tanHash], for: request.key, now: now, repeatWindow: repeatWindow)
            }
        }
    }

    /// Spends the TAN each key holds while its lease runs; true also when the key spent it before. False: the lease
    /// ran out, or the TAN was released or taken over; nothing was spent.
    public func confirm(keys: [String], now: Date) async throws -> [Bool] {
        try await confirmCounting(keys: keys, now: now).confirmed.map { $0 != nil }
    }

    /// `confirm`, answering what each spent TAN was issued for (nil: lapsed), and how many of the TANs this call spent
    /// (not spent before, by an earlier confirmation of the same upload in another second): what the daily statistics
    /// count as redeemed.
    func confirmCounting(keys: [String], now: Date) async throws -> (confirmed: [RedeemedTAN?], firstSpent: Int) {
        guard !keys.isEmpty else { return ([], 0) }
        let timestamp = now.epochSeconds
        let spent = try await database.withConnection { connection in
            try await connection.execute(
                ConfirmUpdate.self, binds: [timestamp, keys],
                otherwise: """
                    UPDATE tans SET redeemed_at = COALESCE(redeemed_at, \(bind: timestamp)) WHERE redemption_key IN \(bindList: keys) \
                    AND (redeemed_at IS NOT NULL OR reserved_until > \(bind: timestamp)) \
                    RETURNING redemption_key, redeemed_at, source, teletan_type, region
                    """
            ).map {
                (key: try $0.decode(column: "redemption_key", as: String.self), redeemedAt: try $0.decode(column: "redeemed_at", as: Int64.self),
                 tan: try Self.redeemedTAN($0))
            }
        }
        var confirmed: [String: RedeemedTAN] = [:]
        for row in spent { confirmed[row.key] = row.tan }
        return (keys.map { confirmed[$0] }, spent.count { $0.redeemedAt == timestamp })
    }

    /// Frees the TANs the keys hold (with `expiredOnly`, only those whose lease ran out) and says how each upload
    /// stands. Rare (an upload that failed, the recovery job), so one portable statement serves both databases.
    public func release(keys: [String], expiredOnly: Bool, now: Date) async throws -> [TANReleaseOutcome] {
        guard !keys.isEmpty else { return [] }
        let timestamp = now.epochSeconds
        let remaining: [String: Bool] = try await database.withConnection { connection in
            var release = SQLQueryString("""
                UPDATE tans SET redemption_key = NULL, reserved_until = NULL WHERE redemption_key IN \(bindList: keys) \
                AND redeemed_at IS NULL
                """)
            if expiredOnly { release.appendInterpolation(" AND reserved_until <= \(bind: timestamp)" as SQLQueryString) }
            try await connection.raw(release).run()
            // What is still there after the release: spent reservations, and (with `expiredOnly`) running ones.
            var remaining: [String: Bool] = [:]
            for row in try await connection.raw(
                "SELECT redemption_key, redeemed_at FROM tans WHERE redemption_key IN \(bindList: keys)"
            ).all() {
                remaining[try row.decode(column: "redemption_key", as: String.self)] = try row.decode(column: "redeemed_at", as: Int64?.self) != nil
            }
            return remaining
        }
        return keys.map { key in
            switch remaining[key] {
            case nil: .released
            case true?: .confirmed
            case false?: .leased
            }
        }
    }

    // MARK: Statements

    /// PostgreSQL's reservation: $1 now, $2 hashes, $3 keys (one per hash), $4 the lease's end. A TAN takes the key of
    /// its first place (`array_position`); it is taken when free, run out, or already held by that key (a renewal).
    enum ReserveUpdate: PreparedStatement {
        static let sql = """
            UPDATE tans SET redemption_key = ($3::TEXT[])[array_position($2::TEXT[], tan_hash)], reserved_until = $4 \
            WHERE tan_hash = ANY($2::TEXT[]) AND redeemed_at IS NULL AND valid_until > $1 \
            AND (redemption_key IS NULL OR reserved_until IS NULL OR reserved_until <= $1 \
            OR redemption_key = ($3::TEXT[])[array_position($2::TEXT[], tan_hash)]) \
            RETURNING tan_hash, redemption_key, source, teletan_type, region
            """
    }

    /// PostgreSQL's confirmation: $1 now, $2 keys.
    enum ConfirmUpdate: PreparedStatement {
        static let sql = """
            UPDATE tans SET redeemed_at = COALESCE(redeemed_at, $1) WHERE redemption_key = ANY($2::TEXT[]) \
            AND (redeemed_at IS NOT NULL OR reserved_until > $1) RETURNING redemption_key, redeemed_at, source, teletan_type, region
            """
    }

    /// SQLite's form of `ReserveUpdate`: the first place's key from a CASE over the batch.
    private static func sqliteReserve(hashes: [String], keys: [String], timestamp: Int64, until: Int64) -> SQLQueryString {
        var firstKey = SQLQueryString("CASE tan_hash")
        for index in hashes.indices {
            firstKey.appendInterpolation(" WHEN \(bind: hashes[index]) THEN \(bind: keys[index])" as SQLQueryString)
        }
        firstKey.appendLiteral(" END")
        var query = SQLQueryString("UPDATE tans SET redemption_key = ")
        query.appendInterpolation("""
            \(firstKey), reserved_until = \(bind: until) WHERE tan_hash IN \(bindList: hashes) AND redeemed_at IS NULL \
            AND valid_until > \(bind: timestamp) AND (redemption_key IS NULL OR reserved_until IS NULL \
            OR reserved_until <= \(bind: timestamp) OR redemption_key = \(firstKey)) \
            RETURNING tan_hash, redemption_key, source, teletan_type, region
            """ as SQLQueryString)
        return query
    }

    /// A TAN row as a reservation sees it.
    private struct TANState {
        let key: String?
        let redeemedAt: Int64?
        let reservedUntil: Int64?
        let validUntil: Int64
        let tan: RedeemedTAN?
    }

    private static func states(ofTANs hashes: [String], on connection: any SQLDatabase) async throws -> [String: TANState] {
        var states: [String: TANState] = [:]
        for row in try await connection.raw("""
            SELECT tan_hash, redemption_key, redeemed_at, reserved_until, valid_until, source, teletan_type, region FROM tans \
            WHERE tan_hash IN \(bindList: Array(Set(hashes)))
            """).all() {
            states[try row.decode(column: "tan_hash", as: String.self)] = TANState(
                key: try row.decode(column: "redemption_key", as: String?.self),
                redeemedAt: try row.decode(column: "redeemed_at", as: Int64?.self),
                reservedUntil: try row.decode(column: "reserved_until", as: Int64?.self),
                validUntil: try row.decode(column: "valid_until", as: Int64.self),
                tan: try redeemedTAN(row)
            )
        }
        return states
    }

    /// The answer for a TAN the reservation did not take for `key`.
    private static func outcome(of state: TANState?, for key: String, now: Date, repeatWindow: Duration) -> TANReservationOutcome {
        guard let state, let tan = state.tan else { return .refused }
        let timestamp = now.epochSeconds
        if let redeemedAt = state.redeemedAt {
            let repeatableAfter = now.addingTimeInterval(-repeatWindow.seconds).epochSeconds
            return state.key == key && redeemedAt > repeatableAfter ? .confirmed(tan) : .refused
        }
        guard state.validUntil > timestamp else { return .refused }
        if let holder = state.key, let until = state.reservedUntil, until > timestamp {
            return holder == key ? .reserved(tan) : .busy(retryAfter: .seconds(until - timestamp))
        }
        // Free now, though the UPDATE did not take it: released by another request in between. The upload tries again.
        return .busy(retryAfter: .zero)
    }

    static func redeemedTAN(_ row: any SQLRow) throws -> RedeemedTAN? {
        guard let source = SessionSource(rawValue: try row.decode(column: "source", as: String.self)) else { return nil }
        return RedeemedTAN(
            source: source,
            teleTANType: try row.decode(column: "teletan_type", as: String?.self).flatMap(TeleTANType.init(rawValue:)),
            region: try row.decode(column: "region", as: String?.self)
        )
    }
}
