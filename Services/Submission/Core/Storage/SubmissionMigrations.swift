import ExposureCore
import ExposureStatistics

/// The submission service's schema, in order. Never edit a released migration: add a new one.
public enum SubmissionMigrations {
    public static let all: [Migration] = [
        Migration(version: 1, name: "create diagnosis_keys", statements: { dialect in
            // The only difference between the dialects is the type of raw bytes.
            let bytes = dialect == .postgres ? "BYTEA" : "BLOB"
            return [
                """
                CREATE TABLE diagnosis_keys (
                    key_data \(bytes) NOT NULL,
                    rolling_start_interval_number INTEGER NOT NULL,
                    rolling_period INTEGER NOT NULL,
                    transmission_risk_level INTEGER NOT NULL,
                    days_since_onset_of_symptoms INTEGER NOT NULL,
                    report_type INTEGER NOT NULL,
                    origin_country TEXT NOT NULL,
                    visited_countries TEXT NOT NULL,
                    consent_to_federation BOOLEAN NOT NULL,
                    submission_type INTEGER NOT NULL,
                    submission_timestamp BIGINT NOT NULL,
                    PRIMARY KEY (key_data, submission_type)
                )
                """,
                // Retention deletes, and distribution reads, by submission hour.
                "CREATE INDEX diagnosis_keys_submission_timestamp ON diagnosis_keys (submission_timestamp)",
            ]
        }),
        Migration(version: 2, name: "record the hour each key is published in", statements: { _ in
            [
                // NULL until a distribution run places the key in an hour; that hour's file is final.
                "ALTER TABLE diagnosis_keys ADD COLUMN published_hour BIGINT",
                // One row: the last complete hour a distribution run planned.
                "CREATE TABLE distribution_progress (id INTEGER PRIMARY KEY, planned_through_hour BIGINT NOT NULL)",
            ]
        }),
        Migration(version: 3, name: "keep the service's secrets", statements: { _ in
            // Written at start-up by the first replica (`RedemptionSecretStore`), as hex text.
            ["CREATE TABLE service_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL)"]
        }),
        Migration(version: 4, name: "keep an upload's keys pending until its TAN is spent", statements: { _ in
            [
                // The key of the upload whose TAN reservation the row waits for (`DiagnosisKeyStore+Pending`), and
                // since when (epoch seconds); both NULL once publishable. Distribution reads only publishable rows.
                "ALTER TABLE diagnosis_keys ADD COLUMN pending_reservation TEXT",
                "ALTER TABLE diagnosis_keys ADD COLUMN pending_since BIGINT",
                // Few rows are pending at any time: the index holds only those.
                "CREATE INDEX diagnosis_keys_pending ON diagnosis_keys (pending_reservation, pending_since) WHERE pending_reservation IS NOT NULL",
            ]
        }),
        Migration(version: 5, name: "record the last scheduled distribution round", statements: { _ in
            // The number of the interval (since the epoch) of the last scheduled run that finished: every replica
            // schedules the job, and a round already run is skipped (`Distributor.runScheduled`).
            ["CREATE TABLE distribution_rounds (id INTEGER PRIMARY KEY, last_round BIGINT NOT NULL)"]
        }),
        Migration(version: 6, name: "keep CovidShield key pairs and the app keys bound", statements: { dialect in
            let bytes = dialect == .postgres ? "BYTEA" : "BLOB"
            return [
                // One row per claimed server key pair: the secret half sealed under COVIDSHIELD_KEY_ENCRYPTION_KEY
                // (`SecretSealer`), the code's region, when the pair dies (unix seconds) and how many keys
                // it may still bring in. Deleted once dead.
                """
                CREATE TABLE covidshield_key_pairs (
                    server_public_key \(bytes) PRIMARY KEY,
                    sealed_secret_key \(bytes) NOT NULL,
                    region TEXT NOT NULL,
                    valid_until BIGINT NOT NULL,
                    keys_remaining INTEGER NOT NULL
                )
                """,
                "CREATE INDEX covidshield_key_pairs_valid_until ON covidshield_key_pairs (valid_until)",
                // SHA-256 of every app public key ever bound: a key is bound for ever, past its pair's life.
                "CREATE TABLE covidshield_bound_app_keys (app_key_hash \(bytes) PRIMARY KEY, bound_at BIGINT NOT NULL)",
            ]
        }),
        Migration(version: 7, name: "record the ProteGO download files and the keys in them", statements: { _ in
            [
                // NULL until a distribution run puts the key into a ProteGO file: then that file's publication time
                // (unix seconds, the first number of its name). Independent of `published_hour`, the CWA tree's.
                "ALTER TABLE diagnosis_keys ADD COLUMN protego_published_at BIGINT",
                "CREATE INDEX diagnosis_keys_protego ON diagnosis_keys (origin_country, protego_published_at)",
                // One row per run that published keys for a region: its files are `<published_at>-00001.zip` up to
                // `-<files>.zip`, written again from the keys recorded here if one is lost.
                """
                CREATE TABLE protego_exports (
                    region TEXT NOT NULL,
                    published_at BIGINT NOT NULL,
                    files INTEGER NOT NULL,
                    key_count INTEGER NOT NULL,
                    PRIMARY KEY (region, published_at)
                )
                """,
            ]
        }),
        Migration(version: 8, name: "create the LEMON family's devices, surveys and statistics", statements: { dialect in
            let bytes = dialect == .postgres ? "BYTEA" : "BLOB"
            return [
                // A device's identity: its AppId only as a keyed hash (the key outside the database), its public key,
                // push token and lockout. Nothing here is ever joined with a survey.
                """
                CREATE TABLE lemon_devices (
                    id TEXT PRIMARY KEY,
                    app_id_hash TEXT NOT NULL UNIQUE,
                    app_id_key TEXT NOT NULL,
                    public_key \(bytes) NOT NULL,
                    operating_system TEXT NOT NULL,
                    language TEXT,
                    push_token TEXT UNIQUE,
                    active BOOLEAN NOT NULL,
                    failed_attempts INTEGER NOT NULL,
                    locked_until BIGINT,
                    last_seed_digest TEXT,
                    session_keys \(bytes),
                    registered_at BIGINT NOT NULL
                )
                """,
                // Survey answers: a random id, no device, every date to the day (docs/privacy.md).
                """
                CREATE TABLE lemon_surveys (
                    id TEXT PRIMARY KEY,
                    submitted_day TEXT NOT NULL,
                    status TEXT,
                    positive_test_day TEXT,
                    negative_test_day TEXT,
                    symptoms_from_day TEXT,
                    country TEXT,
                    language TEXT,
                    age INTEGER,
                    is_symptomatic BOOLEAN,
                    symptoms TEXT NOT NULL
                )
                """,
                "CREATE INDEX lemon_surveys_submitted_day ON lemon_surveys (submitted_day)",
                // Imported case counts per country (alpha-2, or "GLOBAL") and day, newest import wins.
                """
                CREATE TABLE lemon_statistics (
                    country TEXT NOT NULL,
                    day TEXT NOT NULL,
                    contracted BIGINT NOT NULL,
                    deaths BIGINT NOT NULL,
                    recovered BIGINT NOT NULL,
                    imported_at BIGINT NOT NULL,
                    PRIMARY KEY (country, day)
                )
                """,
            ]
        }),
        // Daily statistics (`DailyStatisticsStore`, docs/statistics.md): keys submitted and published per day, which
        // every replica adds to.
        Migration(version: 9, name: "keep daily statistics", sql: DailyStatisticsStore.createTable(service: "submission")),
        Migration(version: 10, name: "keep LEMON session keys only sealed", statements: { _ in
            // `session_keys` now holds the keys sealed to their device (`LemonSessionKeySealer`). Keys stored before
            // were in the clear and cannot be sealed here (the key is not the database's): they are dropped, and each
            // device opens a new session at its next authentication, as it does every hour when its JWT runs out.
            ["UPDATE lemon_devices SET session_keys = NULL"]
        }),
        Migration(version: 11, name: "bind each CovidShield key pair to the app key that claimed it", statements: { dialect in
            let bytes = dialect == .postgres ? "BYTEA" : "BLOB"
            // SHA-256 of the app public key of the claim (as in `covidshield_bound_app_keys`): only an upload sealed
            // under that app key may use the pair. NULL for pairs claimed before; they die within 15 days.
            return ["ALTER TABLE covidshield_key_pairs ADD COLUMN app_key_hash \(bytes)"]
        }),
        Migration(version: 12, name: "remember every LEMON authentication accepted within the clock skew", statements: { dialect in
            let now = dialect == .postgres ? "CAST(EXTRACT(EPOCH FROM now()) AS BIGINT)" : "CAST(strftime('%s', 'now') AS INTEGER)"
            return [
                // One row per seed a device authenticated with (SHA-256), and the time its request was signed: a
                // signed request is accepted once, whatever came after it (`LemonDeviceStore.recordSuccess`). Rows older than
                // twice the signature window are deleted: a request that old is refused by its time anyway.
                """
                CREATE TABLE lemon_accepted_seeds (
                    device_id TEXT NOT NULL,
                    seed_digest TEXT NOT NULL,
                    signed_at BIGINT NOT NULL,
                    PRIMARY KEY (device_id, seed_digest)
                )
                """,
                // The last seed each device was seen with stays refused; `last_seed_digest` is no longer read.
                """
                INSERT INTO lemon_accepted_seeds (device_id, seed_digest, signed_at)
                SELECT id, last_seed_digest, \(now) FROM lemon_devices WHERE last_seed_digest IS NOT NULL
                """,
                "UPDATE lemon_devices SET last_seed_digest = NULL",
            ]
        }),
        Migration(version: 13, name: "keep LEMON push tokens sealed and count surveys per device and day", statements: { dialect in
            let bytes = dialect == .postgres ? "BYTEA" : "BLOB"
            return [
                // The push token sealed to its device (`LemonPushTokenSealer`) and its keyed hash, the unique index.
                // Tokens stored before in `push_token` cannot be sealed here (the key is not the database's): each
                // replica seals what is left at start-up (`LemonDeviceStore.sealStoredPushTokens`) and empties the
                // column, which is no longer written.
                "ALTER TABLE lemon_devices ADD COLUMN push_token_index TEXT",
                "ALTER TABLE lemon_devices ADD COLUMN sealed_push_token \(bytes)",
                "CREATE UNIQUE INDEX lemon_devices_push_token_index ON lemon_devices (push_token_index)",
                // Surveys per device and day (`LemonSurveyQuota`) under a keyed hash of both: no device id and no
                // survey id; rows of past days are deleted.
                "CREATE TABLE lemon_survey_quota (counter TEXT PRIMARY KEY, day TEXT NOT NULL, surveys INTEGER NOT NULL)",
                "CREATE INDEX lemon_survey_quota_day ON lemon_survey_quota (day)",
            ]
        }),
        // Earlier versions made a CovidShield retrieval HMAC key when none was configured, which no real app could
        // know; `COVIDSHIELD_RETRIEVE_HMAC_KEY` is now required and that row is of no more use.
        Migration(version: 14, name: "forget the generated CovidShield retrieval key", sql: ["DELETE FROM service_secrets WHERE name = 'covidshield_retrieve_hmac_key'"]),
    ]

    public static var migrator: Migrator { Migrator(service: "submission", migrations: all) }
}
