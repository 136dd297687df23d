import ExposureCore
import Foundation
import SQLKit
import VerificationDomain

/// Code status over `teletans` and `one_time_codes` (migration 12): the codes officers issued, by their public ids,
/// and expiring one that was read to the wrong person. Only rows with an officer are listed (a health-authority
/// system's codes are its own to track), and only rows issued since migration 12 (older ones have no public id).
public struct IssuedCodeStore: Sendable {
    /// Whose codes a request may see and expire.
    public enum Scope: Sendable, Equatable {
        /// One officer's own (by their token's issuer and subject), in their authority.
        case officer(CodeOwner.Officer, authority: String)
        /// Every officer's of one authority (its supervisors).
        case authority(String)

        var authority: String {
            switch self {
            case .officer(_, let authority), .authority(let authority): authority
            }
        }

        var officer: CodeOwner.Officer? {
            switch self {
            case .officer(let officer, _): officer
            case .authority: nil
            }
        }
    }

    public enum ExpiryOutcome: Sendable, Equatable {
        /// It was live; now it is dead.
        case expired
        /// Already used or expired: nothing changed.
        case notLive
        /// No code of the scope has this id.
        case unknown
    }

    /// The most codes one answer lists, newest first: far more than an authority's officers issue in a week.
    public static let maxListed = 1000

    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// The codes of `scope` issued since `since`, newest first (at most `maxListed`).
    public func recent(_ scope: Scope, since: Date) async throws -> [IssuedCode] {
        try await database.withConnection { connection in
            var query = SQLQueryString("SELECT public_id, type AS kind, created_at AS issued_at, valid_until, redeemed_at, issued_by FROM teletans WHERE ")
            query.appendInterpolation(Self.condition(scope, issuedAt: "created_at", since: since))
            query.appendLiteral(" UNION ALL SELECT public_id, kind, issued_at, valid_until, redeemed_at, issued_by FROM one_time_codes WHERE ")
            query.appendInterpolation(Self.condition(scope, issuedAt: "issued_at", since: since))
            query.appendLiteral(" ORDER BY issued_at DESC, public_id LIMIT \(Self.maxListed)")
            return try await connection.raw(query).all().map { row in
                IssuedCode(
                    id: try row.decode(column: "public_id", as: String.self),
                    kind: try row.decode(column: "kind", as: String.self),
                    issuedAt: try row.decode(column: "issued_at", as: Int64.self),
                    validUntil: try row.decode(column: "valid_until", as: Int64.self),
                    redeemedAt: try row.decode(column: "redeemed_at", as: Int64?.self),
                    officer: try row.decode(column: "issued_by", as: String?.self)
                )
            }
        }
    }

    /// Ends the code `id` of `scope` now, if it is still live. Its row stays (its status reads expired); a teleTAN's
    /// registration and a code's redemption check the same `valid_until` they always did.
    public func expire(id: String, _ scope: Scope, now: Date) async throws -> ExpiryOutcome {
        try await database.transaction { connection in
            for table in ["teletans", "one_time_codes"] {
                var update = SQLQueryString("UPDATE \(unsafeRaw: table) SET valid_until = \(bind: now.epochSeconds) WHERE public_id = \(bind: id) AND ")
                update.appendInterpolation(Self.owned(scope))
                update.appendInterpolation(" AND redeemed_at IS NULL AND valid_until > \(bind: now.epochSeconds) RETURNING public_id" as SQLQueryString)
                if try await connection.raw(update).first() != nil { return .expired }
            }
            for table in ["teletans", "one_time_codes"] {
                var exists = SQLQueryString("SELECT public_id FROM \(unsafeRaw: table) WHERE public_id = \(bind: id) AND ")
                exists.appendInterpolation(Self.owned(scope))
                if try await connection.raw(exists).first() != nil { return .notLive }
            }
            return .unknown
        }
    }

    /// Rows of the scope's authority (and officer) with an officer, issued since `since`.
    private static func condition(_ scope: Scope, issuedAt column: String, since: Date) -> SQLQueryString {
        var condition = owned(scope)
        condition.appendLiteral(" AND public_id IS NOT NULL AND \(column) >= ")
        condition.appendInterpolation(bind: since.epochSeconds)
        return condition
    }

    /// Rows the scope owns: of its authority, issued by an officer (by its officer, for an officer's scope: the same
    /// subject under another token issuer is someone else).
    private static func owned(_ scope: Scope) -> SQLQueryString {
        var condition = SQLQueryString("authority = \(bind: scope.authority) AND issued_by IS NOT NULL")
        if let officer = scope.officer {
            condition.appendLiteral(" AND issued_by = ")
            condition.appendInterpolation(bind: officer.subject)
            condition.appendLiteral(" AND issued_by_issuer = ")
            condition.appendInterpolation(bind: officer.issuer)
        }
        return condition
    }
}
