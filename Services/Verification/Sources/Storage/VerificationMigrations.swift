import ExposureCore
import ExposureStatistics

/// The verification service's schema, in order. Never edit a released migration: add a new one.
///
/// Every secret is stored hashed only: registration tokens, TANs and issuer tokens as SHA-256 hex, teleTANs and the
/// one-time codes of other app families (short enough to try every value) as HMAC-SHA256 under a key the database
/// never holds (a teleTAN kept for a repeat of its request is also stored sealed, under a key the database never
/// holds either). Hashed GUIDs are already hashes (the app sends SHA-256 of the GUID) and are needed as they are to
/// ask the test-result service.
enum VerificationMigrations {
    static let all: [Migration] = [
        Migration(version: 1, name: "create sessions, used keys, tans and teletans", sql: [
            """
            CREATE TABLE app_sessions (
                registration_token_hash TEXT PRIMARY KEY,
                source TEXT NOT NULL,
                hashed_guid TEXT,
                hashed_guid_dob TEXT,
                teletan_type TEXT,
                created_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX app_sessions_created_at ON app_sessions (created_at)",
            // A GUID, DOB hash or teleTAN registers once, ever: the primary key decides between concurrent tries.
            """
            CREATE TABLE used_keys (
                key_hash TEXT PRIMARY KEY,
                used_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX used_keys_used_at ON used_keys (used_at)",
            """
            CREATE TABLE tans (
                tan_hash TEXT PRIMARY KEY,
                registration_token_hash TEXT NOT NULL UNIQUE,
                source TEXT NOT NULL,
                teletan_type TEXT,
                valid_until BIGINT NOT NULL,
                created_at BIGINT NOT NULL,
                redeemed_at BIGINT
            )
            """,
            "CREATE INDEX tans_created_at ON tans (created_at)",
            """
            CREATE TABLE teletans (
                teletan_hash TEXT PRIMARY KEY,
                type TEXT NOT NULL,
                valid_until BIGINT NOT NULL,
                created_at BIGINT NOT NULL,
                redeemed_at BIGINT
            )
            """,
            "CREATE INDEX teletans_created_at ON teletans (created_at)",
        ]),
        // The key of the verification that consumed a TAN, so that a repeat of it is answered as the first
        // (`TanStore.redeem`). It is derived from the TAN, which is stored hashed only, so it cannot be matched
        // without the TAN.
        Migration(version: 2, name: "remember the redemption key of a used TAN", sql: [
            "ALTER TABLE tans ADD COLUMN redemption_key TEXT",
        ]),
        // A teleTAN request with an idempotency key: the key's hash finds the row (one per key, which decides between
        // concurrent repeats), and the teleTAN is kept sealed under a key only the request holds (`TeleTANRequestKey`).
        Migration(version: 3, name: "let a teleTAN request be repeated", sql: [
            "ALTER TABLE teletans ADD COLUMN request_key_hash TEXT",
            "ALTER TABLE teletans ADD COLUMN sealed_teletan TEXT",
            "CREATE UNIQUE INDEX teletans_request_key_hash ON teletans (request_key_hash)",
        ]),
        // teleTANs are stored as HMAC-SHA256 under a key outside the database (`TypedSecretHasher`); the key's id
        // says which. Rows of before are plain SHA-256 and get the legacy id: they are still found until they expire
        // (two days at most), as they would have been.
        Migration(version: 4, name: "store teleTANs as keyed hashes", sql: [
            "ALTER TABLE teletans ADD COLUMN hash_key_id TEXT NOT NULL DEFAULT 'sha256'",
        ]),
        // The issuance limits' counters: one row per scope (everyone, or one officer) and fixed window. Taking one is a
        // single statement that refuses at the limit, so concurrent issuances on any replica never count past it.
        Migration(version: 5, name: "count teleTAN issuance per window, globally and per officer", sql: [
            """
            CREATE TABLE teletan_issuance_counts (
                scope TEXT NOT NULL,
                window_start BIGINT NOT NULL,
                issued INTEGER NOT NULL,
                PRIMARY KEY (scope, window_start)
            )
            """,
            "CREATE INDEX teletan_issuance_counts_window_start ON teletan_issuance_counts (window_start)",
        ]),
        // Two-phase redemption (`TanStore+Reservations`): an upload holds a TAN under its key (`redemption_key`, which
        // then names the reservation) until `reserved_until`, and spends it with a confirmation. The index finds a
        // reservation by its key, which is all the submission service knows of it after the request.
        Migration(version: 6, name: "let an upload reserve a TAN before spending it", sql: [
            "ALTER TABLE tans ADD COLUMN reserved_until BIGINT",
            "CREATE INDEX tans_redemption_key ON tans (redemption_key)",
        ]),
        // The one-time codes of the other app families (`OneTimeCodeStore`): HMAC-SHA256 under the teleTAN keys of the
        // kind and the code, with the key's id, so that a copy of the database alone cannot confirm a guess; kind,
        // region, issue time and end, and when it was redeemed. And the health-authority systems that issue them
        // (`IssuerStore`): a name, the kind and region their codes get, the SHA-256 of their bearer token.
        Migration(version: 7, name: "store the one-time codes of other app families and their issuers", sql: [
            """
            CREATE TABLE one_time_codes (
                code_hash TEXT PRIMARY KEY,
                hash_key_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                region TEXT NOT NULL,
                issued_at BIGINT NOT NULL,
                valid_until BIGINT NOT NULL,
                redeemed_at BIGINT
            )
            """,
            "CREATE INDEX one_time_codes_valid_until ON one_time_codes (valid_until)",
            """
            CREATE TABLE code_issuers (
                name TEXT PRIMARY KEY,
                token_hash TEXT NOT NULL UNIQUE,
                kind TEXT NOT NULL,
                region TEXT NOT NULL,
                created_at BIGINT NOT NULL
            )
            """,
        ]),
        // Daily statistics (`DailyStatisticsStore`, docs/statistics.md): counts per day, figure and breakdown, which
        // every replica adds to.
        Migration(version: 8, name: "keep daily statistics", sql: DailyStatisticsStore.createTable(service: "verification")),
        // A TAN minted from a one-time code keeps the code's region beside its source (the family it was issued for),
        // so that an upload path accepts only its own family's TANs, of its own region. NULL for the Corona-Warn-App's
        // TANs, which belong to the deployment's one CWA region.
        Migration(version: 9, name: "bind a TAN to the region of the code it was minted from", sql: [
            "ALTER TABLE tans ADD COLUMN region TEXT",
        ]),
        // Every issuance through the issuer listener (`IssuerAPI`): which issuer, what kind and region, how many codes,
        // when; never a code. Written in the transaction that stores the codes, so no code is issued without its row.
        Migration(version: 10, name: "audit the codes health-authority systems issue", sql: [
            """
            CREATE TABLE code_issuance_audit (
                issuer TEXT NOT NULL,
                kind TEXT NOT NULL,
                region TEXT NOT NULL,
                count INTEGER NOT NULL,
                issued_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX code_issuance_audit_issued_at ON code_issuance_audit (issued_at)",
        ]),
        // Health authorities, the installation's tenants (`AuthorityStore`): what each may issue (families, regions as
        // comma lists; no regions is every region), its own limits (NULL for none), when it was disabled. Every issuer
        // belongs to one. An installation of before has one authority, `default`, which may issue everything with no
        // limits of its own, so its officers (whose tokens name no authority) and its issuers go on as they did.
        Migration(version: 11, name: "health authorities as tenants") { dialect in
            let now = switch dialect {
            case .sqlite: "CAST(strftime('%s', 'now') AS BIGINT)"
            case .postgres: "CAST(EXTRACT(EPOCH FROM now()) AS BIGINT)"
            }
            return [
                """
                CREATE TABLE authorities (
                    id TEXT PRIMARY KEY,
                    name TEXT NOT NULL,
                    regions TEXT NOT NULL,
                    families TEXT NOT NULL,
                    teletans_per_hour INTEGER,
                    teletans_per_day INTEGER,
                    disabled_at BIGINT,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
                """
                INSERT INTO authorities (id, name, regions, families, teletans_per_hour, teletans_per_day, disabled_at, created_at, updated_at)
                VALUES ('default', 'Default health authority', '', 'cwa,covidshield,protego', NULL, NULL, NULL, \(now), \(now))
                """,
                "ALTER TABLE code_issuers ADD COLUMN authority TEXT NOT NULL DEFAULT 'default'",
            ]
        },
        // Code status (`IssuedCodeStore`): each teleTAN and one-time code gets a random public id, the officer who
        // asked (the token's `sub` and `iss`; NULL for a health-authority system's code) and the authority, so that
        // an officer can see whether the codes they read out were used, and expire one. Codes of before have none and
        // are not listed; they die as they always did.
        Migration(version: 12, name: "code status: who issued each code, under a public id", sql: [
            "ALTER TABLE teletans ADD COLUMN public_id TEXT",
            "ALTER TABLE teletans ADD COLUMN issued_by TEXT",
            "ALTER TABLE teletans ADD COLUMN issued_by_issuer TEXT",
            "ALTER TABLE teletans ADD COLUMN authority TEXT",
            "CREATE UNIQUE INDEX teletans_public_id ON teletans (public_id)",
            "CREATE INDEX teletans_authority_created_at ON teletans (authority, created_at)",
            "ALTER TABLE one_time_codes ADD COLUMN public_id TEXT",
            "ALTER TABLE one_time_codes ADD COLUMN issued_by TEXT",
            "ALTER TABLE one_time_codes ADD COLUMN issued_by_issuer TEXT",
            "ALTER TABLE one_time_codes ADD COLUMN authority TEXT",
            "CREATE UNIQUE INDEX one_time_codes_public_id ON one_time_codes (public_id)",
            "CREATE INDEX one_time_codes_authority_issued_at ON one_time_codes (authority, issued_at)",
        ]),
        // Issuer keys in the portal (`IssuerStore`): a supervisor creates their authority's keys with an optional
        // expiry and sees the day each was last used; `created_by` names who made one (NULL: the command line).
        Migration(version: 13, name: "issuer keys: expiry, last use, creator", sql: [
            "ALTER TABLE code_issuers ADD COLUMN expires_at BIGINT",
            "ALTER TABLE code_issuers ADD COLUMN last_used_day BIGINT",
            "ALTER TABLE code_issuers ADD COLUMN created_by TEXT",
            "CREATE INDEX code_issuers_authority ON code_issuers (authority, name)",
        ]),
        // Per-authority signing keys (`AuthoritySigningKeyStore`): versions of an ES256 key per authority, the private
        // half sealed under SIGNING_KEY_ENCRYPTION_KEY (outside the database) and erased when the version is retired.
        Migration(version: 14, name: "per-authority signing keys", sql: [
            """
            CREATE TABLE authority_signing_keys (
                authority TEXT NOT NULL,
                version INTEGER NOT NULL,
                public_key TEXT NOT NULL,
                sealed_private_key TEXT,
                created_at BIGINT NOT NULL,
                created_by TEXT,
                retired_at BIGINT,
                PRIMARY KEY (authority, version)
            )
            """,
        ]),
        // Limits an authority sets on each of its issuer keys (`AuthoritySettings.issuerCodesPerHour`, `…PerDay`):
        // NULL, as every authority of before has, leaves the installation's ISSUER_CODES_PER_HOUR and _PER_DAY.
        Migration(version: 15, name: "per-authority limits on codes per issuer key", sql: [
            "ALTER TABLE authorities ADD COLUMN issuer_codes_per_hour INTEGER",
            "ALTER TABLE authorities ADD COLUMN issuer_codes_per_day INTEGER",
        ]),
        // The ENX family (Families/ENX, docs/enx.md): its keys of one authority and one role (SHA-256 of the key), its
        // codes (a short and a long form, both keyed hashes, unique so that a lookup finds one row; the caller's uuid
        // unique per authority), and the verification tokens those codes minted (SHA-256 of the token's id).
        Migration(version: 16, name: "the ENX family: keys, codes and verification tokens", sql: [
            """
            CREATE TABLE enx_api_keys (
                key_hash TEXT PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                authority TEXT NOT NULL,
                role TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                created_by TEXT
            )
            """,
            """
            CREATE TABLE enx_codes (
                authority TEXT NOT NULL,
                uuid TEXT NOT NULL,
                code_hash TEXT NOT NULL UNIQUE,
                long_code_hash TEXT NOT NULL UNIQUE,
                hash_key_id TEXT NOT NULL,
                test_type TEXT NOT NULL,
                symptom_day BIGINT,
                test_day BIGINT,
                external_issuer TEXT,
                issued_by TEXT NOT NULL,
                issued_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                long_expires_at BIGINT NOT NULL,
                claimed_at BIGINT,
                PRIMARY KEY (authority, uuid)
            )
            """,
            "CREATE INDEX enx_codes_long_expires_at ON enx_codes (long_expires_at)",
            """
            CREATE TABLE enx_tokens (
                token_hash TEXT PRIMARY KEY,
                authority TEXT NOT NULL,
                test_type TEXT NOT NULL,
                symptom_day BIGINT,
                test_day BIGINT,
                issued_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                used_at BIGINT
            )
            """,
            "CREATE INDEX enx_tokens_expires_at ON enx_tokens (expires_at)",
        ]),
    ]

    static var migrator: Migrator { Migrator(service: "verification", migrations: all) }
}
