import ExposureCore
import PortalDomain

/// The portal's schema, in order. Never edit a released migration: add a new one.
enum PortalMigrations {
    static let all: [Migration] = [
        Migration(version: 1, name: "create users, sessions, oidc logins, rate limits and audit log") { dialect in
            let autoID = dialect == .postgres ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY AUTOINCREMENT"
            return [
                """
                CREATE TABLE portal_users (
                    name TEXT PRIMARY KEY,
                    password_hash TEXT NOT NULL,
                    roles TEXT NOT NULL,
                    disabled_at BIGINT,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
                // Sessions are found by the SHA-256 of the cookie value: a database dump opens no session.
                """
                CREATE TABLE portal_sessions (
                    id_hash TEXT PRIMARY KEY,
                    officer TEXT NOT NULL,
                    roles TEXT NOT NULL,
                    source TEXT NOT NULL,
                    csrf_token TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    access_token TEXT,
                    access_token_expires_at BIGINT,
                    refresh_token TEXT
                )
                """,
                "CREATE INDEX portal_sessions_expires_at ON portal_sessions (expires_at)",
                "CREATE INDEX portal_sessions_officer ON portal_sessions (source, officer)",
                """
                CREATE TABLE portal_oidc_logins (
                    state_hash TEXT PRIMARY KEY,
                    nonce TEXT NOT NULL,
                    code_verifier TEXT NOT NULL,
                    created_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE portal_rate_limits (
                    officer TEXT PRIMARY KEY,
                    next_allowed_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE portal_audit_log (
                    id \(autoID),
                    officer TEXT NOT NULL,
                    source TEXT NOT NULL,
                    occurred_at BIGINT NOT NULL,
                    teletan_type TEXT NOT NULL,
                    health_authority TEXT,
                    outcome TEXT NOT NULL
                )
                """,
                "CREATE INDEX portal_audit_log_occurred_at ON portal_audit_log (occurred_at)",
            ]
        },
        Migration(version: 2, name: "create sign-in attempts") { _ in
            [
                """
                CREATE TABLE portal_sign_in_attempts (
                    name_hash TEXT PRIMARY KEY,
                    attempts BIGINT NOT NULL,
                    window_start BIGINT NOT NULL
                )
                """,
                "CREATE INDEX portal_sign_in_attempts_window_start ON portal_sign_in_attempts (window_start)",
            ]
        },
        Migration(version: 3, name: "officer administration and two-factor sign-in: temporary passwords, session steps, administration audit log, TOTP secrets and recovery codes") { dialect in
            let autoID = dialect == .postgres ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY AUTOINCREMENT"
            return [
                // 1 while the password is a temporary one a supervisor set: the officer must choose their own first.
                "ALTER TABLE portal_users ADD COLUMN must_change_password BIGINT NOT NULL DEFAULT 0",
                // A step the session must finish before anything else (`SessionStep`), NULL when there is none.
                "ALTER TABLE portal_sessions ADD COLUMN pending_step TEXT",
                // Who did what to whom, and when: never a password.
                """
                CREATE TABLE portal_admin_audit_log (
                    id \(autoID),
                    actor TEXT NOT NULL,
                    actor_source TEXT NOT NULL,
                    action TEXT NOT NULL,
                    target TEXT,
                    detail TEXT,
                    occurred_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX portal_admin_audit_log_occurred_at ON portal_admin_audit_log (occurred_at)",
                // Two-factor sign-in: the TOTP secret sealed with AES-GCM under TOTP_ENCRYPTION_KEY (NULL: none set up),
                // the last time step whose code was taken (no code is taken twice), the secret a session is setting
                // up, and the recovery codes as HMACs under a key derived from it.
                "ALTER TABLE portal_users ADD COLUMN totp_secret TEXT",
                "ALTER TABLE portal_users ADD COLUMN totp_last_step BIGINT NOT NULL DEFAULT 0",
                "ALTER TABLE portal_sessions ADD COLUMN totp_enrolment TEXT",
                """
                CREATE TABLE portal_recovery_codes (
                    name TEXT NOT NULL,
                    code_hash TEXT NOT NULL,
                    used_at BIGINT,
                    PRIMARY KEY (name, code_hash)
                )
                """,
            ]
        },
        Migration(version: 4, name: "health authorities: every account, session and audit row belongs to one; an installation that had none migrates into 'default'") { _ in
            [
                // NULL only for a system administrator, who belongs to no authority.
                "ALTER TABLE portal_users ADD COLUMN authority TEXT",
                "UPDATE portal_users SET authority = '\(AuthorityID.default)'",
                "CREATE INDEX portal_users_authority ON portal_users (authority, name)",
                "ALTER TABLE portal_sessions ADD COLUMN authority TEXT",
                "UPDATE portal_sessions SET authority = '\(AuthorityID.default)'",
                // The authority of the officer who asked (issuance) or of the account acted on (administration); NULL
                // for a system administrator's steps that belong to no authority (the maintenance switch), which only the
                // national view shows.
                "ALTER TABLE portal_audit_log ADD COLUMN authority TEXT",
                "UPDATE portal_audit_log SET authority = '\(AuthorityID.default)'",
                "CREATE INDEX portal_audit_log_authority ON portal_audit_log (authority, occurred_at)",
                "ALTER TABLE portal_admin_audit_log ADD COLUMN authority TEXT",
                "UPDATE portal_admin_audit_log SET authority = '\(AuthorityID.default)'",
                "CREATE INDEX portal_admin_audit_log_authority ON portal_admin_audit_log (authority, occurred_at)",
            ]
        },
        Migration(version: 5, name: "settings changed in the portal: the maintenance switch of system administrators") { _ in
            [
                // One row per setting, with who changed it last and when (the audit log has every change).
                "CREATE TABLE portal_settings (name TEXT PRIMARY KEY, value TEXT NOT NULL, changed_by TEXT NOT NULL, changed_at BIGINT NOT NULL)",
            ]
        },
    ]

    static var migrator: Migrator { Migrator(service: "portal", migrations: all) }
}
