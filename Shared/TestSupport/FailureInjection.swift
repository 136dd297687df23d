import ExposureCore
import SQLKit

/// Database failures on demand, on either dialect, for tests of what a service answers when its database fails
/// and of what it leaves behind.
public enum FailureInjection {
    public enum Write: String, Sendable {
        case insert = "INSERT"
        case update = "UPDATE"
    }

    /// Makes every `write` to `table` fail, by a trigger, once the table holds `rows` rows (0: from the first).
    /// `remove(from:in:)` takes the trigger away again.
    public static func fail(_ write: Write, on table: String, onceTableHolds rows: Int = 0, in database: Database) async throws {
        let name = triggerName(table)
        try await database.withConnection { connection in
            switch database.dialect {
            case .sqlite:
                try await connection.raw("""
                    CREATE TRIGGER \(unsafeRaw: name) BEFORE \(unsafeRaw: write.rawValue) ON \(unsafeRaw: table)
                    WHEN (SELECT COUNT(*) FROM \(unsafeRaw: table)) >= \(unsafeRaw: "\(rows)")
                    BEGIN SELECT RAISE(ABORT, 'injected failure'); END
                    """).run()
            case .postgres:
                try await connection.raw("""
                    CREATE FUNCTION \(unsafeRaw: name)() RETURNS trigger AS $$
                    BEGIN
                        IF (SELECT COUNT(*) FROM \(unsafeRaw: table)) >= \(unsafeRaw: "\(rows)") THEN
                            RAISE EXCEPTION 'injected failure';
                        END IF;
                        RETURN NEW;
                    END $$ LANGUAGE plpgsql
                    """).run()
                try await connection.raw("""
                    CREATE TRIGGER \(unsafeRaw: name) BEFORE \(unsafeRaw: write.rawValue) ON \(unsafeRaw: table)
                    FOR EACH ROW EXECUTE FUNCTION \(unsafeRaw: name)()
                    """).run()
            }
        }
    }

    /// Takes away the failure `fail(_:on:onceTableHolds:in:)` put on `table`.
    public static func remove(from table: String, in database: Database) async throws {
        let name = triggerName(table)
        try await database.withConnection { connection in
            switch database.dialect {
            case .sqlite:
                try await connection.raw("DROP TRIGGER \(unsafeRaw: name)").run()
            case .postgres:
                try await connection.raw("DROP TRIGGER \(unsafeRaw: name) ON \(unsafeRaw: table)").run()
                try await connection.raw("DROP FUNCTION \(unsafeRaw: name)()").run()
            }
        }
    }

    /// Runs `body` while `table` is out of reach (renamed), so that reads of it fail as well as writes; the table
    /// comes back, rows and all, afterwards.
    @discardableResult
    public static func withoutTable<Result>(
        _ table: String, in database: Database, _ body: () async throws -> Result
    ) async throws -> Result {
        try await database.withConnection { try await $0.raw("ALTER TABLE \(unsafeRaw: table) RENAME TO \(unsafeRaw: table)_away").run() }
        do {
            let result = try await body()
            try await database.withConnection { try await $0.raw("ALTER TABLE \(unsafeRaw: table)_away RENAME TO \(unsafeRaw: table)").run() }
            return result
        } catch {
            try await database.withConnection { try await $0.raw("ALTER TABLE \(unsafeRaw: table)_away RENAME TO \(unsafeRaw: table)").run() }
            throw error
        }
    }

    private static func triggerName(_ table: String) -> String { "injected_failure_\(table)" }
}
