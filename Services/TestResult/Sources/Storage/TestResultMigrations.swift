import ExposureCore
import ExposureStatistics

/// The test-result service's schema, in order. Never edit a released migration: add a new one.
enum TestResultMigrations {
    static let all: [Migration] = [
        Migration(version: 1, name: "create test_results and lab_credentials", sql: [
            """
            CREATE TABLE test_results (
                id TEXT PRIMARY KEY,
                result INTEGER NOT NULL,
                sample_collection BIGINT NOT NULL,
                lab_id TEXT NOT NULL,
                received_at BIGINT NOT NULL,
                updated_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX test_results_received_at ON test_results (received_at)",
            """
            CREATE TABLE lab_credentials (
                key_hash TEXT PRIMARY KEY,
                lab_id TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                revoked_at BIGINT
            )
            """,
            "CREATE INDEX lab_credentials_lab_id ON lab_credentials (lab_id)",
        ]),
        // Client certificates (SHA-256 fingerprints) as a second kind of lab credential, beside API keys.
        Migration(version: 2, name: "lab credential kinds", sql: [
            "ALTER TABLE lab_credentials ADD COLUMN kind TEXT NOT NULL DEFAULT 'api_key'",
        ]),
        // Daily statistics (`DailyStatisticsStore`, docs/statistics.md): lab results received per day, lab, kind and
        // result, which every replica adds to.
        Migration(version: 3, name: "keep daily statistics", sql: DailyStatisticsStore.createTable(service: "testresult")),
        // The last day (UTC) each credential was used, so that an operator rotating a lab's key sees when the old one
        // fell out of use: a day, never a time.
        Migration(version: 4, name: "lab credentials: last day used", sql: [
            "ALTER TABLE lab_credentials ADD COLUMN last_used_day BIGINT",
        ]),
    ]

    static var migrator: Migrator { Migrator(service: "testresult", migrations: all) }
}
