import ExposureCore
import Foundation
import PortalDomain
import SQLKit

/// A session gets a new id and CSRF token whenever a sign-in step completes, so that a cookie or token captured before
/// the step (a second factor, a set-up authenticator, a new password) is worth nothing after it.
extension SessionStore {
    /// Moves the session `oldIdHash` to `newIdHash` with a new CSRF token and the step it must take next, in one
    /// statement: the old id no longer finds it. False when the old session is gone (ended meanwhile, or a concurrent
    /// request rotated it first): the caller then signs the browser in again.
    public func rotate(idHash oldIdHash: String, to newIdHash: String, csrfToken: String, pendingStep: SessionStep?) async throws -> Bool {
        try await database.withConnection { connection in
            try await connection.raw("""
                UPDATE portal_sessions SET id_hash = \(bind: newIdHash), csrf_token = \(bind: csrfToken),
                    pending_step = \(bind: pendingStep?.rawValue)
                WHERE id_hash = \(bind: oldIdHash) RETURNING id_hash
                """).first() != nil
        }
    }
}
