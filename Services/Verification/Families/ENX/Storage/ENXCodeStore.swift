import ExposureCore
import Foundation
import SQLKit
import VerificationDomain

/// Queries on `enx_codes`: the ENX family's codes, each a short and a long form stored only as keyed hashes
/// (HMAC-SHA256 under the teleTAN keys, `TypedSecretHasher`, of `ENX:` and the code), with the health authority it
/// belongs to, the caller's `uuid` for it, its test type and dates, both ends of life and when it was claimed.
///
/// A claim is one conditional UPDATE (`claimed_at IS NULL` and the presented form alive): the database gives the row
/// to one statement only, so of concurrent verifications of one code on any replica exactly one wins. The token the
/// claim mints is stored in the same transaction: a code is never spent without its token.
public struct ENXCodeStore: Sendable {
    let database: Database
    let hasher: TypedSecretHasher
    /// How often a drawn code that collides with a stored one is drawn again before the issuance fails.
    static let draws = 8

    public init(database: Database, hasher: TypedSecretHasher) {
        self.database = database
        self.hasher = hasher
    }

    /// A stored code, as the issuer and device endpoints need it.
    public struct Row: Sendable, Equatable {
        public let uuid: String
        public let testType: ENXReportType
        public let symptomDate: UTCDay?
        public let testDate: UTCDay?
        /// Unix seconds.
        public let expiresAt: Int64
        public let longExpiresAt: Int64
        public let claimed: Bool
    }

    /// What a new code is issued with.
    public struct NewCode: Sendable {
        public let authority: String
        public let uuid: String
        public let testType: ENXReportType
        public let symptomDate: UTCDay?
        public let testDate: UTCDay?
        public let externalIssuer: String?
        /// The admin key's name, or an officer's subject: who asked.
        public let issuedBy: String
        public let issuedAt: Int64
        public let expiresAt: Int64
        public let longExpiresAt: Int64
    }

    /// The short and the long code of a stored new code.
    public struct Issued: Sendable, Equatable {
        public let shortCode: String
        public let longCode: String
    }

    /// The caller's `uuid` names a code of its authority already.
    public struct UUIDTaken: Error {}
    /// A drawn code collided with a stored one `draws` times in a row.
    public struct NoUniqueCode: Error {}

    static func hashInput(_ code: String) -> String { "ENX:\(code)" }

    /// Whether `uuid` names a code of `authority`.
    public func exists(authority: String, uuid: String) async throws -> Bool {
        try await database.withConnection { connection in
            try await connection.raw("SELECT 1 AS one FROM enx_codes WHERE authority = \(bind: authority) AND uuid = \(bind: uuid)").first() != nil
        }
    }

    /// Draws a short and a long code with `settings` and stores their hashes with `code`. A drawn code whose hash
    /// collides with a stored one (under any configured key, live or not yet purged) is drawn again, so that a lookup
    /// never finds two rows.
    public func issue(_ code: NewCode, settings: ENXCodeSettings, random: any RandomSource) async throws -> Issued {
        let hasher = self.hasher
        for _ in 0..<Self.draws {
            let short = ENXCodes.shortCode(length: settings.shortCodeLength, using: random)
            let long = ENXCodes.longCode(length: settings.longCodeLength, using: random)
            let shortHash = hasher.hash(Self.hashInput(short)), longHash = hasher.hash(Self.hashInput(long))
            var insert = SQLQueryString("""
                INSERT INTO enx_codes (authority, uuid, code_hash, long_code_hash, hash_key_id, test_type, symptom_day, test_day, \
                external_issuer, issued_by, issued_at, expires_at, long_expires_at, claimed_at) \
                SELECT \(bind: code.authority), \(bind: code.uuid), \(bind: shortHash.hash), \(bind: longHash.hash), \(bind: shortHash.keyID), \
                \(bind: code.testType.rawValue), \(bind: code.symptomDate?.number), \(bind: code.testDate?.number), \(bind: code.externalIssuer), \
                \(bind: code.issuedBy), \(bind: code.issuedAt), \(bind: code.expiresAt), \(bind: code.longExpiresAt), NULL \
                WHERE NOT EXISTS (SELECT 1 FROM enx_codes WHERE
                """)
            insert.appendInterpolation(Self.matching(hasher.candidates(Self.hashInput(short)) + hasher.candidates(Self.hashInput(long))))
            // The unique indexes decide between concurrent draws of one code, and between two calls with one uuid.
            insert.appendLiteral(") ON CONFLICT DO NOTHING RETURNING uuid")
            let statement = insert
            if try await database.withConnection({ try await $0.raw(statement).first() }) != nil {
                return Issued(shortCode: short, longCode: long)
            }
            if try await exists(authority: code.authority, uuid: code.uuid) { throw UUIDTaken() }
        }
        throw NoUniqueCode()
    }

    /// The code of `authority` whose short or long form is `code`, and which form it is; nil when there is none.
    public func find(authority: String, code: String) async throws -> (row: Row, form: ENXClaimRule.Form)? {
        let candidates = hasher.candidates(Self.hashInput(code))
        var query = SQLQueryString("""
            SELECT uuid, test_type, symptom_day, test_day, expires_at, long_expires_at, claimed_at, code_hash, long_code_hash \
            FROM enx_codes WHERE authority = \(bind: authority) AND (
            """)
        query.appendInterpolation(Self.matching(candidates))
        query.appendLiteral(")")
        let statement = query
        guard let found = try await database.withConnection({ try await $0.raw(statement).first() }) else { return nil }
        let shortHash = try found.decode(column: "code_hash", as: String.self)
        let form: ENXClaimRule.Form = candidates.contains { $0.hash == shortHash } ? .short : .long
        return (try Self.row(found), form)
    }

    /// The code `uuid` of `authority`, or nil.
    public func status(authority: String, uuid: String) async throws -> Row? {
        let row = try await database.withConnection { connection in
            try await connection.raw("""
                SELECT uuid, test_type, symptom_day, test_day, expires_at, long_expires_at, claimed_at FROM enx_codes \
                WHERE authority = \(bind: authority) AND uuid = \(bind: uuid)
                """).first()
        }
        return try row.map(Self.row)
    }

    /// Claims the code `uuid` of `authority` through its `form`, if it is still unclaimed and that form alive at
    /// `now`, and stores `token` in the same transaction. False when another claim won or the form died meanwhile.
    public func claim(authority: String, uuid: String, form: ENXClaimRule.Form, now: Int64, token: ENXTokenStore.NewToken) async throws -> Bool {
        struct Lost: Error {}
        let end = form == .short ? "expires_at" : "long_expires_at"
        do {
            return try await database.transaction { connection in
                let claimed = try await connection.raw("""
                    UPDATE enx_codes SET claimed_at = \(bind: now) WHERE authority = \(bind: authority) AND uuid = \(bind: uuid) \
                    AND claimed_at IS NULL AND \(unsafeRaw: end) > \(bind: now) RETURNING uuid
                    """).first()
                guard claimed != nil else { throw Lost() }
                try await ENXTokenStore.insert(token, on: connection)
                return true
            }
        } catch is Lost {
            return false
        }
    }

    public enum Expiry: Sendable, Equatable {
        /// Both forms end at these times now (Unix seconds).
        case expired(expiresAt: Int64, longExpiresAt: Int64)
        case claimed
        case unknown
    }

    /// Ends both forms of an unclaimed code of `authority` at `now` (a form already dead keeps its end).
    public func expire(authority: String, uuid: String, now: Int64) async throws -> Expiry {
        let updated = try await database.withConnection { connection in
            try await connection.raw("""
                UPDATE enx_codes SET expires_at = CASE WHEN expires_at < \(bind: now) THEN expires_at ELSE \(bind: now) END, \
                long_expires_at = CASE WHEN long_expires_at < \(bind: now) THEN long_expires_at ELSE \(bind: now) END \
                WHERE authority = \(bind: authority) AND uuid = \(bind: uuid) AND claimed_at IS NULL RETURNING expires_at, long_expires_at
                """).first()
        }
        if let updated {
            return .expired(
                expiresAt: try updated.decode(column: "expires_at", as: Int64.self),
                longExpiresAt: try updated.decode(column: "long_expires_at", as: Int64.self)
            )
        }
        return try await status(authority: authority, uuid: uuid) == nil ? .unknown : .claimed
    }

    /// Deletes codes whose long form died before `cutoff` (Unix seconds): their status is no longer asked for.
    public func purge(before cutoff: Int64) async throws -> Int {
        try await database.withConnection { connection in
            try await connection.raw("DELETE FROM enx_codes WHERE long_expires_at < \(bind: cutoff) RETURNING uuid").all().count
        }
    }

    static func row(_ row: any SQLRow) throws -> Row {
        Row(
            uuid: try row.decode(column: "uuid", as: String.self),
            testType: try ENXTokenStore.reportType(row),
            symptomDate: try row.decode(column: "symptom_day", as: Int64?.self).map(UTCDay.init(number:)),
            testDate: try row.decode(column: "test_day", as: Int64?.self).map(UTCDay.init(number:)),
            expiresAt: try row.decode(column: "expires_at", as: Int64.self),
            longExpiresAt: try row.decode(column: "long_expires_at", as: Int64.self),
            claimed: try row.decode(column: "claimed_at", as: Int64?.self) != nil
        )
    }

    /// `(hash_key_id = … AND (code_hash = … OR long_code_hash = …)) OR …` over the stored forms a code can have.
    static func matching(_ candidates: [KeyedSecretHash]) -> SQLQueryString {
        var condition = SQLQueryString("")
        for (offset, candidate) in candidates.enumerated() {
            condition.appendLiteral(offset == 0 ? "(" : " OR (")
            condition.appendInterpolation(
                "hash_key_id = \(bind: candidate.keyID) AND (code_hash = \(bind: candidate.hash) OR long_code_hash = \(bind: candidate.hash)))" as SQLQueryString
            )
        }
        return condition
    }
}
