import ExposureCore
import Foundation
import SQLKit
import VerificationDomain

/// Queries on `enx_tokens`: the verification tokens `/api/verify` minted, known only by the SHA-256 of their `jti`
/// (`ENXVerificationToken.storedID`), with the authority, test type and dates of their code, their end, and when they
/// were spent on a certificate. Spending is one conditional UPDATE, so a token buys one certificate on any replica.
public struct ENXTokenStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    public struct NewToken: Sendable {
        public let id: String
        public let authority: String
        public let subject: ENXTokenSubject
        public let issuedAt: Int64
        public let expiresAt: Int64

        public init(id: String, authority: String, subject: ENXTokenSubject, issuedAt: Int64, expiresAt: Int64) {
            self.id = id
            self.authority = authority
            self.subject = subject
            self.issuedAt = issuedAt
            self.expiresAt = expiresAt
        }
    }

    static func insert(_ token: NewToken, on connection: any SQLDatabase) async throws {
        try await connection.raw("""
            INSERT INTO enx_tokens (token_hash, authority, test_type, symptom_day, test_day, issued_at, expires_at, used_at)
            VALUES (\(bind: token.id), \(bind: token.authority), \(bind: token.subject.testType.rawValue), \(bind: token.subject.symptomDate?.number),
                    \(bind: token.subject.testDate?.number), \(bind: token.issuedAt), \(bind: token.expiresAt), NULL)
            """).run()
    }

    /// The subject stored for the unspent, live token `id` of `authority`; nil for a token that is unknown there, spent
    /// or dead.
    public func usable(id: String, authority: String, now: Int64) async throws -> ENXTokenSubject? {
        let row = try await database.withConnection { connection in
            try await connection.raw("""
                SELECT test_type, symptom_day, test_day FROM enx_tokens WHERE token_hash = \(bind: id) AND authority = \(bind: authority) \
                AND used_at IS NULL AND expires_at > \(bind: now)
                """).first()
        }
        guard let row else { return nil }
        return ENXTokenSubject(
            testType: try Self.reportType(row),
            symptomDate: try row.decode(column: "symptom_day", as: Int64?.self).map(UTCDay.init(number:)),
            testDate: try row.decode(column: "test_day", as: Int64?.self).map(UTCDay.init(number:))
        )
    }

    /// Spends the token: true when this call did, false when it was spent, died or is unknown.
    public func spend(id: String, authority: String, now: Int64) async throws -> Bool {
        try await database.withConnection { connection in
            try await connection.raw("""
                UPDATE enx_tokens SET used_at = \(bind: now) WHERE token_hash = \(bind: id) AND authority = \(bind: authority) \
                AND used_at IS NULL AND expires_at > \(bind: now) RETURNING token_hash
                """).first() != nil
        }
    }

    /// Deletes tokens that died before `cutoff` (Unix seconds).
    public func purge(before cutoff: Int64) async throws -> Int {
        try await database.withConnection { connection in
            try await connection.raw("DELETE FROM enx_tokens WHERE expires_at < \(bind: cutoff) RETURNING token_hash").all().count
        }
    }

    /// A stored test type that is none of the four: the row was written by something else than this service.
    struct UnknownReportType: Error {}

    static func reportType(_ row: any SQLRow) throws -> ENXReportType {
        guard let type = ENXReportType(rawValue: try row.decode(column: "test_type", as: String.self)) else { throw UnknownReportType() }
        return type
    }
}
