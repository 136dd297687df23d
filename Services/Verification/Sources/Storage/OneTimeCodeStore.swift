import ExposureCore
import Foundation
import SQLKit
import VerificationDomain

/// Queries on `one_time_codes`: the codes of the other app families (`OneTimeCodeKind`), stored as keyed hashes only
/// (HMAC-SHA256 under the teleTAN keys, `TypedSecretHasher`, of the kind and the code), each with its kind, region,
/// issue time and end, and the time it was redeemed.
///
/// Redemption is one conditional UPDATE of the row (`redeemed_at IS NULL AND valid_until > now`): the database gives
/// the row to one statement only, so of concurrent redemptions on any replica exactly one wins, and a used code never
/// matches again. A ProteGO PIN's upload credential is minted in the same transaction, so a PIN is never spent without
/// its TAN, nor a TAN made without spending the PIN.
public struct OneTimeCodeStore: Sendable {
    let database: Database
    let hasher: TypedSecretHasher
    /// How often a drawn code that collides with a stored one is drawn again before the issuance fails.
    static let draws = 8

    public init(database: Database, hasher: TypedSecretHasher) {
        self.database = database
        self.hasher = hasher
    }

    public enum Issuance: Sendable, Equatable {
        /// Stored (and counted): the codes, and the counters' counts after them in the order of the counters.
        case issued([String], counts: [Int])
        /// The counter at this index is at its limit; nothing was stored or counted.
        case refused(Int)
    }

    /// A drawn code collided with a stored one `draws` times in a row.
    public struct NoUniqueCode: Error {}

    /// Draws `count` new codes of `kind` for `region`, valid until `validUntil`, and stores their hashes, counting the
    /// codes in each of `counters` and, for an issuer's call, writing its audit row (`auditIssuer`: who, what kind,
    /// how many, when; never a code), in one transaction: all of it or nothing. A code whose hash collides with a
    /// stored row (live, used or expired but not yet purged) is drawn again; its hash under an older configured key
    /// counts as a collision too, so a lookup never finds two rows.
    func issue(
        kind: OneTimeCodeKind, region: String, count: Int, now: Date, validUntil: Date,
        owner: CodeOwner, counters: [TeleTANStore.IssuanceCounter] = [], windowStart: Int64 = 0, auditIssuer: String? = nil,
        random: any RandomSource
    ) async throws -> Issuance {
        struct Refused: Error { let index: Int }
        let hasher = self.hasher
        do {
            let (codes, counts) = try await database.transaction { connection in
                let counts: [Int]
                do {
                    counts = try await TeleTANStore.count(counters, windowStart: windowStart, amount: count, on: connection)
                } catch let full as TeleTANStore.CounterAtLimit {
                    throw Refused(index: full.index)
                }
                var codes: [String] = []
                codes.reserveCapacity(count)
                for _ in 0..<count {
                    codes.append(try await Self.insertNew(
                        kind: kind, region: region, now: now, validUntil: validUntil, owner: owner, hasher: hasher, random: random,
                        on: connection
                    ))
                }
                if let auditIssuer {
                    try await connection.raw("""
                        INSERT INTO code_issuance_audit (issuer, kind, region, count, issued_at)
                        VALUES (\(bind: auditIssuer), \(bind: kind.rawValue), \(bind: region), \(bind: count), \(bind: now.epochSeconds))
                        """).run()
                }
                return (codes, counts)
            }
            return .issued(codes, counts: counts)
        } catch let refused as Refused {
            return .refused(refused.index)
        }
    }

    /// Stores one new code and answers it.
    private static func insertNew(
        kind: OneTimeCodeKind, region: String, now: Date, validUntil: Date, owner: CodeOwner, hasher: TypedSecretHasher,
        random: any RandomSource, on connection: any SQLDatabase
    ) async throws -> String {
        for _ in 0..<draws {
            let code = kind.generate(using: random)
            let input = kind.hashInput(code)
            let stored = hasher.hash(input)
            var insert = SQLQueryString("""
                INSERT INTO one_time_codes (code_hash, hash_key_id, kind, region, issued_at, valid_until, redeemed_at, public_id, issued_by, issued_by_issuer, authority) \
                SELECT \(bind: stored.hash), \(bind: stored.keyID), \(bind: kind.rawValue), \(bind: region), \(bind: now.epochSeconds), \
                \(bind: validUntil.epochSeconds), NULL, \(bind: Codes.uuidV4(using: random)), \(bind: owner.officer?.subject), \(bind: owner.officer?.issuer), \(bind: owner.authority) WHERE NOT EXISTS (SELECT 1 FROM one_time_codes WHERE \(matching(hasher.candidates(input)))
                """)
            // The primary key decides between concurrent draws of one code under the current key.
            insert.appendLiteral(") ON CONFLICT DO NOTHING RETURNING code_hash")
            if try await connection.raw(insert).first() != nil { return code }
        }
        throw NoUniqueCode()
    }

    /// The code's row, redeemed now: its region and issue time. Nil when no live, unused code of `kind` is `code` (the
    /// same answer for unknown, used and expired codes). With `mint`, the same transaction stores that TAN.
    public func redeem(kind: OneTimeCodeKind, code: String, now: Date, mint: MintedTAN? = nil) async throws -> RedeemedOneTimeCode? {
        struct NotRedeemable: Error {}
        let timestamp = now.epochSeconds
        var update = SQLQueryString("""
            UPDATE one_time_codes SET redeemed_at = \(bind: timestamp) WHERE kind = \(bind: kind.rawValue) AND redeemed_at IS NULL \
            AND valid_until > \(bind: timestamp) AND (
            """)
        update.appendInterpolation(Self.matching(hasher.candidates(kind.hashInput(code))))
        update.appendLiteral(") RETURNING region, issued_at")
        let redeem = update
        do {
            return try await database.transaction { connection in
                // One row at most: a new code's hash under every configured key was checked free when it was stored.
                guard let row = try await connection.raw(redeem).first() else { throw NotRedeemable() }
                let region = try row.decode(column: "region", as: String.self)
                if let mint {
                    // Bound to the family and the region of its PIN: only that family's upload path, for that region,
                    // accepts it (`TanSource` in openapi/verification.yaml).
                    try await connection.raw("""
                        INSERT INTO tans (tan_hash, registration_token_hash, source, teletan_type, valid_until, created_at, redeemed_at, region)
                        VALUES (\(bind: mint.tanHash), \(bind: mint.placeholderTokenHash), \(bind: SessionSource.proteGO.rawValue), NULL,
                                \(bind: mint.validUntil.epochSeconds), \(bind: timestamp), NULL, \(bind: region))
                        """).run()
                }
                return RedeemedOneTimeCode(region: region, issuedAt: try row.decode(column: "issued_at", as: Int64.self))
            }
        } catch is NotRedeemable {
            return nil
        }
    }

    /// `(hash_key_id = … AND code_hash = …) OR …` over the stored forms a code can have.
    private static func matching(_ candidates: [KeyedSecretHash]) -> SQLQueryString {
        var condition = SQLQueryString("")
        for (offset, candidate) in candidates.enumerated() {
            condition.appendLiteral(offset == 0 ? "(" : " OR (")
            condition.appendInterpolation("hash_key_id = \(bind: candidate.keyID) AND code_hash = \(bind: candidate.hash))" as SQLQueryString)
        }
        return condition
    }
}

/// The upload credential a redeemed ProteGO PIN mints: a TAN row, spent through the two-phase redemption
/// (`TanStore+Reservations`) only when an upload succeeds.
public struct MintedTAN: Sendable {
    /// SHA-256 of the TAN, as every TAN is stored.
    public let tanHash: String
    /// `tans.registration_token_hash` is unique and not null; a minted TAN has no registration, so it gets a hash of
    /// random bytes that no token can match.
    public let placeholderTokenHash: String
    public let validUntil: Date

    public init(tanHash: String, placeholderTokenHash: String, validUntil: Date) {
        self.tanHash = tanHash
        self.placeholderTokenHash = placeholderTokenHash
        self.validUntil = validUntil
    }
}
