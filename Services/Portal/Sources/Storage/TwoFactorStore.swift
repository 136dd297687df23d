import ExposureCore
import Foundation
import SQLKit

/// Officers' two-factor sign-in: the sealed TOTP secret and the last step used (`portal_users`), and the recovery
/// codes' keyed hashes (`portal_recovery_codes`).
public struct TwoFactorStore: Sendable {
    public struct Enrolment: Sendable, Equatable {
        public let sealedSecret: String
        /// The last time step whose code signed in: no code of it or of an earlier step is taken again.
        public let lastStep: Int64
    }

    let database: Database

    public init(database: Database) {
        self.database = database
    }

    public func enrolment(name: String) async throws -> Enrolment? {
        try await database.withConnection { connection in
            guard let row = try await connection.raw("""
                SELECT totp_secret, totp_last_step FROM portal_users WHERE name = \(bind: name) AND totp_secret IS NOT NULL
                """).first() else { return nil }
            return Enrolment(
                sealedSecret: try row.decode(column: "totp_secret", as: String.self),
                lastStep: try row.decode(column: "totp_last_step", as: Int64.self)
            )
        }
    }

    /// Stores the secret (its confirming code's step as the last used) and the recovery codes' hashes, replacing
    /// unused ones; false when the account has a secret already or does not exist.
    public func enrol(name: String, sealedSecret: String, step: Int64, recoveryCodeHashes: [String]) async throws -> Bool {
        try await database.transaction { connection in
            guard try await connection.raw("""
                UPDATE portal_users SET totp_secret = \(bind: sealedSecret), totp_last_step = \(bind: step)
                WHERE name = \(bind: name) AND totp_secret IS NULL RETURNING name
                """).first() != nil else { return false }
            try await connection.raw("DELETE FROM portal_recovery_codes WHERE name = \(bind: name)").run()
            for hash in recoveryCodeHashes {
                try await connection.raw("""
                    INSERT INTO portal_recovery_codes (name, code_hash, used_at) VALUES (\(bind: name), \(bind: hash), NULL)
                    """).run()
            }
            return true
        }
    }

    /// Takes the code of `step` for a sign-in: one statement, so a code (or an earlier one) is accepted once only,
    /// whichever replica sees it twice.
    public func claim(name: String, step: Int64) async throws -> Bool {
        try await database.withConnection { connection in
            try await connection.raw("""
                UPDATE portal_users SET totp_last_step = \(bind: step)
                WHERE name = \(bind: name) AND totp_secret IS NOT NULL AND totp_last_step < \(bind: step) RETURNING name
                """).first() != nil
        }
    }

    /// Spends a recovery code; false when it is not the account's or was used.
    public func useRecoveryCode(name: String, hash: String, now: Date) async throws -> Bool {
        try await database.withConnection { connection in
            try await connection.raw("""
                UPDATE portal_recovery_codes SET used_at = \(bind: now.epochSeconds)
                WHERE name = \(bind: name) AND code_hash = \(bind: hash) AND used_at IS NULL RETURNING name
                """).first() != nil
        }
    }

    public func unusedRecoveryCodes(name: String) async throws -> Int {
        try await database.withConnection { connection in
            try await connection.raw("""
                SELECT COUNT(*) AS n FROM portal_recovery_codes WHERE name = \(bind: name) AND used_at IS NULL
                """).first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    /// Removes the secret and the recovery codes (`users reset-2fa`); false when there is no such account.
    public func reset(name: String) async throws -> Bool {
        try await database.transaction { connection in
            try await connection.raw("DELETE FROM portal_recovery_codes WHERE name = \(bind: name)").run()
            return try await connection.raw("""
                UPDATE portal_users SET totp_secret = NULL, totp_last_step = 0 WHERE name = \(bind: name) RETURNING name
                """).first() != nil
        }
    }
}
