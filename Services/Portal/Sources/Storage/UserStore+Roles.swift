import ExposureCore
import Foundation
import PortalDomain
import SQLKit

extension UserStore {
    /// Replaces the roles of an account of `scope`; false when `scope` has no such account.
    public func setRoles(name: String, _ roles: Set<String>, in scope: AuthorityScope, now: Date, audit: OfficerAuditEntry? = nil) async throws -> Bool {
        try await changing(audit: audit) { connection in
            try await connection.raw("""
                UPDATE portal_users SET roles = \(bind: RoleList.encode(roles)), updated_at = \(bind: now.epochSeconds)
                WHERE name = \(bind: name)\(Self.within(scope)) RETURNING name
                """).first() != nil
        }
    }
}
