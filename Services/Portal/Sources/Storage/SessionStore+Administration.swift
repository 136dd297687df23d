import ExposureCore
import Foundation
import PortalDomain
import SQLKit

/// What the officer administration and the password change do to sessions.
extension SessionStore {
    /// Gives every session of a local account its new roles at once: a role taken away is gone from the next request
    /// on, and a supervisor who changes their own roles stays signed in.
    public func setRoles(localOfficer name: String, _ roles: Set<String>) async throws {
        try await database.withConnection { connection in
            try await connection.raw("""
                UPDATE portal_sessions SET roles = \(bind: RoleList.encode(roles))
                WHERE source = \(bind: Officer.Source.local.rawValue) AND officer = \(bind: name)
                """).run()
        }
    }

    /// Ends every session of a local account but one (the officer's own, after they changed their password); returns
    /// how many.
    @discardableResult
    public func deleteAll(localOfficer name: String, except kept: String) async throws -> Int {
        try await database.withConnection { connection in
            try await connection.raw("""
                DELETE FROM portal_sessions WHERE source = \(bind: Officer.Source.local.rawValue) AND officer = \(bind: name)
                AND id_hash <> \(bind: kept) RETURNING id_hash
                """).all().count
        }
    }
}
