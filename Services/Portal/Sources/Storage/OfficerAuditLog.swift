import ExposureCore
import Foundation
import PortalDomain
import SQLKit

/// One administration step: who (`actor`, of `actorSource`) did what (`action`) to whom (`target`), with what
/// (`detail`, e.g. the new roles), and when. A password is never part of it.
public struct OfficerAuditEntry: Sendable, Equatable {
    public let actor: String
    public let actorSource: Officer.Source
    /// An `OfficerAction` raw value, or `OfficerAction.issuance` for a row of the teleTAN log.
    public let action: String
    public let target: String?
    public let detail: String?
    public let occurredAt: Int64
    /// The health authority whose audit log shows the row: that of the account acted on (or of the officer who asked,
    /// for an issuance, or the authority a system administrator changed); nil for a step that belongs to no authority
    /// (the maintenance switch), which only the national view shows.
    public let authority: String?

    public init(actor: String, actorSource: Officer.Source, action: String, target: String?, detail: String?, occurredAt: Int64, authority: String?) {
        self.actor = actor
        self.actorSource = actorSource
        self.action = action
        self.target = target
        self.detail = detail
        self.occurredAt = occurredAt
        self.authority = authority
    }
}

/// Append-only queries on `portal_admin_audit_log`, and the audit page's view of it together with the teleTAN and
/// one-time code requests of `portal_audit_log`.
public struct OfficerAuditLog: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    public func record(_ entry: OfficerAuditEntry) async throws {
        try await database.withConnection { try await Self.insert(entry, on: $0) }
    }

    /// Writes `entry` on `connection`: inside the transaction of the change it records (`UserStore`), so that a
    /// change and its audit row are stored together or not at all.
    static func insert(_ entry: OfficerAuditEntry, on connection: any SQLDatabase) async throws {
        try await connection.raw("""
            INSERT INTO portal_admin_audit_log (actor, actor_source, action, target, detail, occurred_at, authority)
            VALUES (\(bind: entry.actor), \(bind: entry.actorSource.rawValue), \(bind: entry.action), \(bind: entry.target),
                    \(bind: entry.detail), \(bind: entry.occurredAt), \(bind: entry.authority))
            """).run()
    }

    /// One page of both logs' rows of `scope`, newest first, as `filter` says; one row more than a page when an older
    /// page exists.
    public func page(_ filter: AuditFilter, in scope: AuthorityScope) async throws -> [OfficerAuditEntry] {
        try await entries(filter, scope: scope, limit: AuditFilter.pageSize + 1, offset: filter.offset)
    }

    /// Every row of both logs `filter` selects (its page aside), newest first, at most `AuditFilter.exportLimit`: the
    /// audit page's CSV download.
    public func export(_ filter: AuditFilter, in scope: AuthorityScope) async throws -> [OfficerAuditEntry] {
        try await entries(filter, scope: scope, limit: AuditFilter.exportLimit, offset: 0)
    }

    private func entries(_ filter: AuditFilter, scope: AuthorityScope, limit: Int, offset: Int) async throws -> [OfficerAuditEntry] {
        // The teleTAN log joins as action `issue` (a constant of ours, not a parameter: PostgreSQL must know its type), its type, outcome and health authority as the detail.
        var query: SQLQueryString = """
            SELECT actor, actor_source, action, target, detail, occurred_at, authority FROM (
                SELECT id, 1 AS log, actor, actor_source, action, target, detail, occurred_at, authority FROM portal_admin_audit_log
                UNION ALL
                SELECT id, 2 AS log, officer AS actor, source AS actor_source, '\(unsafeRaw: OfficerAction.issuance)' AS action, NULL AS target,
                       teletan_type || ' ' || outcome || COALESCE(' ' || health_authority, '') AS detail, occurred_at, authority
                FROM portal_audit_log
            ) entries WHERE 1 = 1
            """
        if let authority = scope.authorityID { query += " AND authority = \(bind: authority)" }
        if let actor = filter.actor { query += " AND actor = \(bind: actor)" }
        if let action = filter.action { query += " AND action = \(bind: action)" }
        if let from = filter.from { query += " AND occurred_at >= \(bind: from)" }
        if let until = filter.until { query += " AND occurred_at < \(bind: until)" }
        query += " ORDER BY occurred_at DESC, log, id DESC LIMIT \(bind: limit) OFFSET \(bind: offset)"
        return try await database.withConnection { [query] connection in
            try await connection.raw(query).all().map { row in
                OfficerAuditEntry(
                    actor: try row.decode(column: "actor", as: String.self),
                    actorSource: Officer.Source(rawValue: try row.decode(column: "actor_source", as: String.self)) ?? .local,
                    action: try row.decode(column: "action", as: String.self),
                    target: try row.decode(column: "target", as: String?.self),
                    detail: try row.decode(column: "detail", as: String?.self),
                    occurredAt: try row.decode(column: "occurred_at", as: Int64.self),
                    authority: try row.decode(column: "authority", as: String?.self)
                )
            }
        }
    }
}
