import ExposureCore
import Foundation
import SQLKit

/// Settings that system administrators change in the portal (`portal_settings`), shared by every replica through the
/// database: one row each, with who changed it last and when; every change is in the administration audit log too.
struct PortalSettingsStore: Sendable {
    struct Value: Sendable, Equatable {
        let value: String
        let changedBy: String
        let changedAt: Int64
    }

    /// The maintenance switch: `on` or `off`.
    static let maintenance = "maintenance"

    let database: Database

    func value(_ name: String) async throws -> Value? {
        try await database.withConnection { connection in
            try await connection.raw("SELECT value, changed_by, changed_at FROM portal_settings WHERE name = \(bind: name)").first().map { row in
                Value(
                    value: try row.decode(column: "value", as: String.self),
                    changedBy: try row.decode(column: "changed_by", as: String.self),
                    changedAt: try row.decode(column: "changed_at", as: Int64.self)
                )
            }
        }
    }

    /// Sets `name` to `value` and records `audit` in the same transaction.
    func set(_ name: String, to value: String, audit: OfficerAuditEntry) async throws {
        try await database.transaction { connection in
            try await connection.raw("""
                INSERT INTO portal_settings (name, value, changed_by, changed_at) VALUES (\(bind: name), \(bind: value), \(bind: audit.actor), \(bind: audit.occurredAt))
                ON CONFLICT (name) DO UPDATE SET value = excluded.value, changed_by = excluded.changed_by, changed_at = excluded.changed_at
                """).run()
            try await OfficerAuditLog.insert(audit, on: connection)
        }
    }
}
