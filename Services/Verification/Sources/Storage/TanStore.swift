import ExposureCore
import Foundation
import SQLKit

/// What a verified TAN came from.
public struct RedeemedTAN: Sendable, Equatable {
    public let source: SessionSource
    public let teleTANType: TeleTANType?
}

/// Queries on `tans`: one TAN per registration token, consumed once.
public struct TanStore: Sendable {
    /// Redemptions out at once; those that queue behind them go together in one UPDATE (`RequestBatcher`).
    static let redeemSlots = 2
    static let redeemBatch = 100

    /// One TAN to consume, and the instant its request came in.
    struct Redemption: Sendable {
        let tanHash: String
        let now: Date

        /// PostgreSQL's form of a batch's UPDATE: one array of hashes, so one prepared statement serves every size.
        enum Update: PreparedStatement {
            static let sql = """
                UPDATE tans SET redeemed_at = $1 WHERE tan_hash = ANY($2::TEXT[]) AND redeemed_at IS NULL AND valid_until > $1 \
                RETURNING tan_hash, source, teletan_type
                """
        }
    }

    let database: Database
    private let redemptions: RequestBatcher<Redemption, RedeemedTAN?>

    public init(database: Database) {
        self.database = database
        self.redemptions = RequestBatcher(slots: Self.redeemSlots, maxBatch: Self.redeemBatch) { batch in
            try await Self.redeem(batch, in: database)
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

    /// Consumes a TAN if it is known, unexpired and unused: of concurrent verifications of one TAN exactly one
    /// gets it. Verifications that arrive while `redeemSlots` others are out are redeemed together.
    public func redeem(tanHash: String, now: Date) async throws -> RedeemedTAN? {
        try await redemptions.value(for: Redemption(tanHash: tanHash, now: now))
    }

    /// Consumes the TANs of a batch request in one statement, answering in their order (see `redeem(_:in:)`).
    public func redeem(tanHashes: [String], now: Date) async throws -> [RedeemedTAN?] {
        try await Self.redeem(tanHashes.map { Redemption(tanHash: $0, now: now) }, in: database)
    }

    /// Consumes the TANs of `batch` in one statement and answers in its order. The database hands each row to one
    /// statement only (a row another batch redeemed first no longer matches `redeemed_at IS NULL`), and a TAN asked
    /// for twice within the batch goes to the first asker. Expiry is judged at the batch's latest instant, the one
    /// closest to the moment the TANs are consumed.
    static func redeem(_ batch: [Redemption], in database: Database) async throws -> [RedeemedTAN?] {
        guard let latest = batch.map(\.now).max() else { return [] }
        let timestamp = latest.epochSeconds
        let hashes = Array(Set(batch.map(\.tanHash)))
        var unclaimed: [String: RedeemedTAN] = try await database.withConnection { connection in
            let rows = try await connection.execute(
                Redemption.Update.self, binds: [timestamp, hashes],
                otherwise: """
                    UPDATE tans SET redeemed_at = \(bind: timestamp) WHERE tan_hash IN \(bindList: hashes) \
                    AND redeemed_at IS NULL AND valid_until > \(bind: timestamp) RETURNING tan_hash, source, teletan_type
                    """
            )
            var redeemed: [String: RedeemedTAN] = [:]
            for row in rows {
                guard let source = SessionSource(rawValue: try row.decode(column: "source", as: String.self)) else { continue }
                redeemed[try row.decode(column: "tan_hash", as: String.self)] = RedeemedTAN(
                    source: source,
                    teleTANType: try row.decode(column: "teletan_type", as: String?.self).flatMap(TeleTANType.init(rawValue:))
                )
            }
            return redeemed
        }
        return batch.map { unclaimed.removeValue(forKey: $0.tanHash) }
    }
}
