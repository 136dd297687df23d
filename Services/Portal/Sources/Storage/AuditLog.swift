import ExposureCore
import ExposureStatistics
import Foundation
import PortalDomain
import SQLKit

/// One attempt to issue a teleTAN or a one-time code of another app family: who, when, which type or kind, for which
/// health authority, and what came of it. The code itself is never recorded.
public struct AuditEntry: Sendable, Equatable {
    public enum Outcome: String, Sendable {
        case issued
        /// The officer's own limit (one per interval).
        case officerLimited = "officer_limited"
        /// Verification's global limit.
        case globalLimited = "global_limited"
        /// The limit of the officer's health authority, at verification.
        case authorityLimited = "authority_limited"
        /// Verification did not accept the credential.
        case refused
        /// Verification could not be reached or failed.
        case failed
    }

    public let officer: String
    public let source: Officer.Source
    public let occurredAt: Int64
    /// Recorded in the column `teletan_type`: `TEST`, `EVENT`, `COVIDSHIELD` or `PROTEGO`.
    public let kind: IssuedKind
    public let healthAuthority: String?
    public let outcome: Outcome
    /// The officer's own health authority (`AuthorityID`), whose audit log shows the row.
    public let authority: String?
}

/// Append-only queries on `portal_audit_log`.
public struct AuditLog: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    public func record(_ entry: AuditEntry) async throws {
        try await database.withConnection { connection in
            try await connection.raw("""
                INSERT INTO portal_audit_log (officer, source, occurred_at, teletan_type, health_authority, outcome, authority)
                VALUES (\(bind: entry.officer), \(bind: entry.source.rawValue), \(bind: entry.occurredAt),
                        \(bind: entry.kind.rawValue), \(bind: entry.healthAuthority), \(bind: entry.outcome.rawValue), \(bind: entry.authority))
                """).run()
        }
    }

    /// The daily figures of `authority`'s officers from `from` through `through` (UTC days): `officer_issuance` by
    /// kind (`TEST`, `EVENT`, `COVIDSHIELD`, `PROTEGO`) for what was issued, `officer_issuance_refused` by outcome for
    /// what was not. A supervisor's statistics: their authority's own, which no other authority's rows reach.
    public func dailyCounts(authority: String, from: StatisticsDay, through: StatisticsDay) async throws -> [DailyCount] {
        try await database.withConnection { connection in
            try await connection.raw("""
                SELECT occurred_at / 86400 AS day, teletan_type, outcome, COUNT(*) AS n FROM portal_audit_log
                WHERE authority = \(bind: authority) AND occurred_at >= \(bind: from.number * 86400)
                  AND occurred_at < \(bind: (through.number + 1) * 86400)
                GROUP BY occurred_at / 86400, teletan_type, outcome
                """).all().map { row in
                let outcome = try row.decode(column: "outcome", as: String.self)
                let issued = outcome == AuditEntry.Outcome.issued.rawValue
                return DailyCount(
                    day: StatisticsDay(number: try row.decode(column: "day", as: Int64.self)),
                    figure: issued ? Self.issuedFigure : Self.refusedFigure,
                    breakdown: issued ? try row.decode(column: "teletan_type", as: String.self) : outcome,
                    count: try row.decode(column: "n", as: Int64.self)
                )
            }
        }
    }

    public static let issuedFigure = "officer_issuance"
    public static let refusedFigure = "officer_issuance_refused"

    /// The latest entries of `scope`, newest first.
    public func recent(limit: Int, in scope: AuthorityScope) async throws -> [AuditEntry] {
        var query: SQLQueryString = "SELECT officer, source, occurred_at, teletan_type, health_authority, outcome, authority FROM portal_audit_log"
        if let authority = scope.authorityID { query += " WHERE authority = \(bind: authority)" }
        query += " ORDER BY id DESC LIMIT \(bind: limit)"
        return try await database.withConnection { [query] connection in
            try await connection.raw(query).all().compactMap { row in
                guard let source = Officer.Source(rawValue: try row.decode(column: "source", as: String.self)),
                      let kind = IssuedKind(rawValue: try row.decode(column: "teletan_type", as: String.self)),
                      let outcome = AuditEntry.Outcome(rawValue: try row.decode(column: "outcome", as: String.self))
                else { return nil }
                return AuditEntry(
                    officer: try row.decode(column: "officer", as: String.self),
                    source: source,
                    occurredAt: try row.decode(column: "occurred_at", as: Int64.self),
                    kind: kind,
                    healthAuthority: try row.decode(column: "health_authority", as: String?.self),
                    outcome: outcome,
                    authority: try row.decode(column: "authority", as: String?.self)
                )
            }
        }
    }
}
