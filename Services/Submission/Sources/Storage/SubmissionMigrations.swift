import ExposureCore

/// The submission service's schema, in order. Never edit a released migration: add a new one.
enum SubmissionMigrations {
    static let all: [Migration] = [
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
        // (6 is another branch's.)
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
    ]

    static var migrator: Migrator { Migrator(service: "submission", migrations: all) }
}
