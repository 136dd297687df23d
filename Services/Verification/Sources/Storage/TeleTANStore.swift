import ExposureCore
import Foundation
import SQLKit

/// Queries on `teletans`.
public struct TeleTANStore: Sendable {
    let database: Database

    public init(database: Database) { self.database = database }

    /// A teleTAN issued for a request with an idempotency key, as a repeat of that request finds it.
    struct RequestedIssuance: Sendable {
        var type: TeleTANType
        /// The teleTAN, sealed under the request's key (`TeleTANRequestKey`).
        var sealedTeleTAN: String
        var createdAt: Date
    }

    /// Stores a new teleTAN's keyed hash, and for a request with an idempotency key the key's hash and the sealed teleTAN.
    /// False when the hash collides with a live teleTAN (astronomically unlikely), or when a concurrent request with
    /// the same key stored its teleTAN first (`issuance(requestKeyHash:)` then finds that one).
    func insert(
        hash: KeyedSecretHash, type: TeleTANType, validUntil: Date, now: Date,
        request: (keyHash: String, sealedTeleTAN: String)? = nil
    ) async throws -> Bool {
        try await database.withConnection { connection in
            // No conflict target: the primary key and the unique request key both end in DO NOTHING.
            try await !connection.raw("""
                INSERT INTO teletans (teletan_hash, hash_key_id, type, valid_until, created_at, redeemed_at, request_key_hash, sealed_teletan)
                VALUES (\(bind: hash.hash), \(bind: hash.keyID), \(bind: type.rawValue), \(bind: validUntil.epochSeconds), \(bind: now.epochSeconds), NULL,
                        \(bind: request?.keyHash), \(bind: request?.sealedTeleTAN))
                ON CONFLICT DO NOTHING RETURNING teletan_hash
                """).all().isEmpty
        }
    }

    /// The teleTAN issued for the request whose key hashes to `requestKeyHash`, if any still exists.
    func issuance(requestKeyHash: String) async throws -> RequestedIssuance? {
        try await database.withConnection { connection in
            guard let row = try await connection.raw("""
                SELECT type, sealed_teletan, created_at FROM teletans WHERE request_key_hash = \(bind: requestKeyHash)
                """).first()
            else { return nil }
            return RequestedIssuance(
                type: TeleTANType(rawValue: try row.decode(column: "type", as: String.self)) ?? .test,
                sealedTeleTAN: try row.decode(column: "sealed_teletan", as: String.self),
                createdAt: Date(timeIntervalSince1970: TimeInterval(try row.decode(column: "created_at", as: Int64.self)))
            )
        }
    }

    /// teleTANs issued since `since`, by every replica: the global rate limit counts these.
    public func issuedCount(since: Date) async throws -> Int {
        try await database.withConnection { connection in
            try await connection.raw("SELECT COUNT(*) AS n FROM teletans WHERE created_at > \(bind: since.epochSeconds)").first()?
                .decode(column: "n", as: Int.self) ?? 0
        }
    }
}
