import ExposureCore
import Foundation
@testable import PortalDomain

extension PortalHarness {
    /// The rows of the administration audit log, oldest first: `actor action target detail` each; without the
    /// supervisors' set-up of two-factor sign-in unless `enrolments`.
    func administrationRows(enrolments: Bool = false) async throws -> [String] {
        try await database.withConnection { connection in
            try await connection.raw("""
                SELECT actor, action, target, detail FROM portal_admin_audit_log
                WHERE action <> 'totp_enrolled' OR \(bind: enrolments ? 1 : 0) = 1 ORDER BY id
                """).all().map { row in
                [
                    try row.decode(column: "actor", as: String.self),
                    try row.decode(column: "action", as: String.self),
                    try row.decode(column: "target", as: String?.self) ?? "-",
                    try row.decode(column: "detail", as: String?.self) ?? "-",
                ].joined(separator: " ")
            }
        }
    }

    /// A signed-in supervisor (local account, no teleTAN roles), with two-factor sign-in set up.
    func supervisor(_ name: String = "sofia", language: String? = nil, authority: String? = nil) async throws -> PortalBrowser {
        try await TwoFactorHelp.enrolledSupervisor(self, name, language: language, authority: authority).browser
    }

    /// A signed-in system administrator (two-factor sign-in set up), of no authority.
    func systemAdministrator(_ name: String = "sam", language: String? = nil) async throws -> PortalBrowser {
        try await TwoFactorHelp.enrolledSupervisor(self, name, language: language, roles: OfficerRoles.systemAdministrator).browser
    }
}
