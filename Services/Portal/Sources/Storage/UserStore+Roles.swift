import ExposureCore
import Foundation
import SQLKit

extension UserStore {
    /// Replaces the account's roles; false when there is no such account.
    public func setRoles(name: String, _ roles: Set<String>, now: Date, audit: OfficerAuditEntry? = nil) async throws -> Bool {
        try await changing(audit: audit) { connection in
            try await connection.raw("""
                UPDATE portal_users SET roles = \(bind: RoleList.encode(roles)), updated_at = \(bind: now.epochSeconds)
                WHERE name = \(bind: name) RETURNING name
                """).first() != nil
        }
    }
}
