import ExposureCore
import Foundation
import SQLKit

/// The TOTP secret a session is setting up, sealed, until its code confirms it (`portal_sessions.totp_enrolment`).
extension SessionStore {
    public func enrolmentSecret(idHash: String) async throws -> String? {
        try await database.withConnection { connection in
            guard let row = try await connection.raw("SELECT totp_enrolment FROM portal_sessions WHERE id_hash = \(bind: idHash)").first() else {
                return nil
            }
            return try row.decode(column: "totp_enrolment", as: String?.self)
        }
    }

    public func setEnrolmentSecret(idHash: String, _ sealed: String?) async throws {
        try await database.withConnection { connection in
            try await connection.raw("UPDATE portal_sessions SET totp_enrolment = \(bind: sealed) WHERE id_hash = \(bind: idHash)").run()
        }
    }
}
