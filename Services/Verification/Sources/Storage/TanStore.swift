import ExposureCore
import Foundation
import SQLKit
import VerificationDomain

/// Queries on `tans`: one TAN per registration token, consumed once.
///
/// A verification may carry a redemption key. The key that consumed a TAN is stored with it, and for
/// `repeatWindow` after, a verification with the same key is answered as the first was: it is the same
/// verification repeated (a retry whose first answer was lost, a submission sent again after its keys were rolled
/// back), not a second use. An upload may instead reserve the TAN first and spend it with a confirmation
/// (`TanStore+Reservations`); a TAN held by a running reservation is not spent here.
public struct TanStore: Sendable {
    /// Redemptions out at once; those that queue behind them go together in one UPDATE (`RequestBatcher`).
    static let redeemSlots = 2
    static let redeemBatch = 100

    /// One TAN to consume, with the redemption key of its verification, and the instant its request came in.
    struct Redemption: Sendable {
        let tanHash: String
        let key: String?
        let now: Date

        init(tanHash: String, key: String? = nil, now: Date) {
            self.tanHash = tanHash
            self.key = key
            self.now = now
        }

        /// PostgreSQL's form of a batch's UPDATE: the hashes and keys (empty for none) as two arrays, so one
        /// prepared statement serves every size. $1 is the batch's instant; a repeat counts for a use after $4.
        /// A TAN takes the key of its first place in the batch (`array_position`); a used one matches a repeat when
        /// its key is among the batch's, and the caller keeps only the places whose key it is. The one-phase
        /// verification is the Corona-Warn-App's contract (`X-CWA-TELETAN-TYPE`): another family's TAN is not found.
        enum Update: PreparedStatement {
            static let sql = """
                UPDATE tans SET redeemed_at = COALESCE(redeemed_at, $1), \
                redemption_key = CASE WHEN redeemed_at IS NULL \
                THEN NULLIF(($3::TEXT[])[array_position($2::TEXT[], tan_hash)], '') ELSE redemption_key END \
                WHERE tan_hash = ANY($2::TEXT[]) AND source IN ('GUID', 'TELETAN') \
                AND ((redeemed_at IS NULL AND valid_until > $1 AND (reserved_until IS NULL OR reserved_until <= $1)) \
                OR (redemption_key = ANY($3::TEXT[]) AND redeemed_at > $4)) \
                RETURNING tan_hash, redemption_key, source, teletan_type, region
                """
        }
    }

    let database: Database
    let repeatWindow: Duration
    /// How long a reservation holds a TAN (`Lifetimes.tanReservation`).
    let lease: Duration
    private let redemptions: RequestBatcher<Redemption, RedeemedTAN?>

    public init(database: Database, repeatWindow: Duration = Lifetimes().tanRepeat, lease: Duration = Lifetimes().tanReservation) {
        self.database = database
        self.repeatWindow = repeatWindow
        self.lease = lease
        self.redemptions = RequestBatcher(slots: Self.redeemSlots, maxBatch: Self.redeemBatch) { batch in
            try await Self.redeem(batch, repeatWindow: repeatWindow, in: database)
        }
    }

    /// Stores a TAN for a registration token; false when the token already has one (the unique constraint
    /// decides between concurrent requests).
    public func issue(tanHash: String, tokenHash: String, source: SessionSource, type: TeleTANType?, validUntil: Date, now: Date) async throws -> Bool {
        try await database.withConnection { connection in
            try await !connection.raw("""
                INSERT INTO tans (tan_hash, registration_token_hash, source, teletan_type, valid_until, created_at, redeemed_at)
                VALUES (\(bind: tanHash), \(bind: tokenHash), \(bind: source.rawValue), \(bind: type?.rawValue), \(bind: validUntil.epochSeconds), \(bind: now.epochSeconds), NULL)
                ON CONFLICT (registration_token_hash) DO NOTHING
                RETURNING tan_hash
                """).all().isEmpty
        }
    }

    /// Consumes a TAN if it is known, unexpired and unused, or answers a repeat of the verification that consumed
    /// it: of concurrent verifications of one TAN with different keys, exactly one gets it. Verifications that
    /// arrive while `redeemSlots` others are out are redeemed together.
    public func redeem(tanHash: String, key: String? = nil, now: Date) async throws -> RedeemedTAN? {
        try await redemptions.value(for: Redemption(tanHash: tanHash, key: key, now: now))
    }

    /// Consumes the TANs of a batch request in one statement, answering in their order
    /// (see `redeem(_:repeatWindow:in:)`).
    public func redeem(tanHashes: [String], keys: [String]? = nil, now: Date) async throws -> [RedeemedTAN?] {
        let redemptions = tanHashes.indices.map { Redemption(tanHash: tanHashes[$0], key: keys?[$0], now: now) }
        return try await Self.redeem(redemptions, repeatWindow: repeatWindow, in: database)
    }

    /// Consumes the TANs of `batch` in one statement and answers in its order.
    ///
    /// The database hands each row to one statement only (a row another batch redeemed first no longer matches
    /// `redeemed_at IS NULL`). Within the statement a TAN asked for twice goes to the first asker's redemption key;
    /// every place in the batch with the key that won is valid, except that a verification without a key is answered
    /// once. Expiry is judged at the batch's latest instant, the one closest to the moment the TANs are consumed.
    static func redeem(_ batch: [Redemption], repeatWindow: Duration, in database: Database) async throws -> [RedeemedTAN?] {
        guard let latest = batch.map(\.now).max() else { return [] }
        let timestamp = latest.epochSeconds
        let repeatableAfter = latest.addingTimeInterval(-repeatWindow.seconds).epochSeconds
        // No key is sent as the empty string, which no stored key equals.
        let hashes = batch.map(\.tanHash), keys = batch.map { $0.key ?? "" }
        var won: [String: (key: String?, tan: RedeemedTAN)] = try await database.withConnection { connection in
            let rows = try await connection.execute(
                Redemption.Update.self, binds: [timestamp, hashes, keys, repeatableAfter],
                otherwise: sqliteUpdate(hashes: hashes, keys: keys, timestamp: timestamp, repeatableAfter: repeatableAfter)
            )
            var won: [String: (key: String?, tan: RedeemedTAN)] = [:]
            for row in rows {
                guard let tan = try redeemedTAN(row) else { continue }
                won[try row.decode(column: "tan_hash", as: String.self)] = (key: try row.decode(column: "redemption_key", as: String?.self), tan: tan)
            }
            return won
        }
        return batch.map { redemption in
            guard let winner = won[redemption.tanHash], winner.key == redemption.key else { return nil }
            if redemption.key == nil { won.removeValue(forKey: redemption.tanHash) }
            return winner.tan
        }
    }

    /// SQLite's form of `Redemption.Update`: SQLite has no arrays, so the first asker's key comes from a CASE over
    /// the batch (its first matching branch) and the lists are bound one value at a time.
    private static func sqliteUpdate(hashes: [String], keys: [String], timestamp: Int64, repeatableAfter: Int64) -> SQLQueryString {
        var query = SQLQueryString("""
            UPDATE tans SET redeemed_at = COALESCE(redeemed_at, \(bind: timestamp)), \
            redemption_key = CASE WHEN redeemed_at IS NULL THEN NULLIF(CASE tan_hash
            """)
        for index in hashes.indices {
            query.appendInterpolation(" WHEN \(bind: hashes[index]) THEN \(bind: keys[index])" as SQLQueryString)
        }
        query.appendInterpolation("""
             END, '') ELSE redemption_key END WHERE tan_hash IN \(bindList: hashes) AND source IN ('GUID', 'TELETAN') \
            AND ((redeemed_at IS NULL AND valid_until > \(bind: timestamp) AND (reserved_until IS NULL OR reserved_until <= \(bind: timestamp))) \
            OR (redemption_key IN \(bindList: keys) AND redeemed_at > \(bind: repeatableAfter))) \
            RETURNING tan_hash, redemption_key, source, teletan_type, region
            """ as SQLQueryString)
        return query
    }
}
