import ExposureCore
import Foundation
import SQLKit
import VerificationDomain

/// Queries on `teletans` and on the issuance limits' counters (`teletan_issuance_counts`).
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

    /// One counter of the issuance limits: its scope and its limit per window, and the start of its window when it
    /// is not the one the counting call is given (an issuer's hour and day).
    struct IssuanceCounter: Sendable {
        var scope: String
        var limit: Int
        var windowStart: Int64? = nil
    }

    enum Issuance: Sendable, Equatable {
        /// Stored and counted; the counters' counts after it, in the order of the counters.
        case issued([Int])
        /// The counter at this index is at its limit; nothing was stored or counted.
        case refused(Int)
        /// Nothing stored or counted: the hash collides with a live teleTAN (astronomically unlikely), or a
        /// concurrent request with the same idempotency key stored its teleTAN first (`issuance(requestKeyHash:)` then
        /// finds that one).
        case notStored
    }

    /// Counts one issuance in each counter of the window starting at `windowStart` (`count`) and stores the new
    /// teleTAN's keyed hash (with, for a request with an idempotency key, the key's hash and the sealed teleTAN), in one
    /// transaction: all of it or nothing, so a refused or failed request counts nothing.
    func issue(
        hash: KeyedSecretHash, type: TeleTANType, validUntil: Date, now: Date,
        request: (keyHash: String, sealedTeleTAN: String)?, owner: CodeOwner, publicID: String,
        counters: [IssuanceCounter], windowStart: Int64
    ) async throws -> Issuance {
        struct Undone: Error { let outcome: Issuance }
        do {
            let counts = try await database.transaction { connection in
                let counts: [Int]
                do {
                    counts = try await Self.count(counters, windowStart: windowStart, on: connection)
                } catch let full as CounterAtLimit {
                    throw Undone(outcome: .refused(full.index))
                }
                // No conflict target: the primary key and the unique request key both end in DO NOTHING.
                let stored = try await connection.raw("""
                    INSERT INTO teletans (teletan_hash, hash_key_id, type, valid_until, created_at, redeemed_at, request_key_hash, sealed_teletan,
                                          public_id, issued_by, issued_by_issuer, authority)
                    VALUES (\(bind: hash.hash), \(bind: hash.keyID), \(bind: type.rawValue), \(bind: validUntil.epochSeconds), \(bind: now.epochSeconds), NULL,
                            \(bind: request?.keyHash), \(bind: request?.sealedTeleTAN), \(bind: publicID), \(bind: owner.officer?.subject), \(bind: owner.officer?.issuer), \(bind: owner.authority))
                    ON CONFLICT DO NOTHING RETURNING teletan_hash
                    """).all()
                if stored.isEmpty { throw Undone(outcome: .notStored) }
                return counts
            }
            return .issued(counts)
        } catch let undone as Undone {
            return undone.outcome
        }
    }

    /// The counter at `index` of a `count` is at its limit; the transaction it ran in must be rolled back.
    struct CounterAtLimit: Error {
        let index: Int
    }

    /// Counts `amount` issuances (one request's codes) in each counter of the window starting at `windowStart` (or
    /// the counter's own), on `connection` (in the caller's transaction), and answers the counts after it; throws
    /// `CounterAtLimit` at the first counter that `amount` would take past its limit. Every code an officer issues
    /// counts here (teleTANs and the one-time codes of the other app families), and every code an issuer's system does.
    ///
    /// Each count is one statement that inserts the window's row or adds to it, unless that passes the limit
    /// (`ON CONFLICT … DO UPDATE … WHERE issued + amount <= limit RETURNING`): the database gives a row to one statement
    /// at a time, so concurrent issuances on any replica never count past a limit. The counters are always taken in the
    /// same order, so two transactions never wait for each other's rows.
    static func count(_ counters: [IssuanceCounter], windowStart: Int64, amount: Int = 1, on connection: any SQLDatabase) async throws -> [Int] {
        var counts: [Int] = []
        for (index, counter) in counters.enumerated() {
            // A first row is inserted unconditionally: an amount beyond the limit must not start one.
            guard amount <= counter.limit else { throw CounterAtLimit(index: index) }
            guard let row = try await connection.raw("""
                INSERT INTO teletan_issuance_counts (scope, window_start, issued) \
                VALUES (\(bind: counter.scope), \(bind: counter.windowStart ?? windowStart), \(bind: amount))
                ON CONFLICT (scope, window_start) DO UPDATE SET issued = teletan_issuance_counts.issued + \(bind: amount)
                WHERE teletan_issuance_counts.issued + \(bind: amount) <= \(bind: counter.limit)
                RETURNING issued
                """).first()
            else { throw CounterAtLimit(index: index) }
            counts.append(try row.decode(column: "issued", as: Int.self))
        }
        return counts
    }
}
