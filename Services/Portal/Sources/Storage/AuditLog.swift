import ExposureCore
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

    /// The latest entries, newest first.
    public func recent(limit: Int) async throws -> [AuditEntry] {
        try await database.withConnection { connection in
            try await connection.raw("""
                SELECT officer, source, occurred_at, teletan_type, health_authority, outcome, authority
                FROM portal_audit_log ORDER BY id DESC LIMIT \(bind: limit)
                """).all().compactMap { row in
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
