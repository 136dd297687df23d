import ExposureCore
import Foundation
import Logging
import SQLKit
import Testing

/// The databases every storage test runs against: SQLite always, PostgreSQL when `TEST_POSTGRES_URL` names a
/// server (`scripts/test.sh` starts a throwaway one). With `REQUIRE_POSTGRES=1` (set by `scripts/test.sh` and
/// CI) a missing server is a failure, never a silent skip.
public enum TestDatabase: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case sqlite
    case postgres

    /// The kinds to test in this run.
    public static var all: [TestDatabase] {
        let environment = ProcessInfo.processInfo.environment
        if environment["TEST_POSTGRES_URL"]?.isEmpty == false { return [.sqlite, .postgres] }
        if environment["REQUIRE_POSTGRES"] == "1" {
            // Parameterised tests would otherwise quietly run on SQLite only.
            fatalError("REQUIRE_POSTGRES=1 but TEST_POSTGRES_URL is not set: run the tests through scripts/test.sh")
        }
        _ = warnOnceThatPostgresIsLeftOut
        return [.sqlite]
    }

    public var testDescription: String { rawValue }

    /// A banner on standard error, once per run, when the PostgreSQL variants are left out.
    private static let warnOnceThatPostgresIsLeftOut: Void = {
        FileHandle.standardError.write(Data("""
            
            ******** PostgreSQL is NOT tested in this run: TEST_POSTGRES_URL is not set, so every storage test runs on
            ******** SQLite only. Run scripts/test.sh (it starts a throwaway server), or set TEST_POSTGRES_URL.
            
            """.utf8))
    }()

    /// A new, empty database of this kind for one test; dropped afterwards.
    ///
    /// SQLite gets a file in a temporary directory (not `:memory:`, so that pooled connections share it);
    /// PostgreSQL gets a database of its own on the test server.
    public func withFreshDatabaseURL<T: Sendable>(_ body: (DatabaseURL) async throws -> T) async throws -> T {
        switch self {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("exposure-test-\(UUID().uuidString.lowercased())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            return try await body(.sqliteFile(directory.appendingPathComponent("test.db").path))
        case .postgres:
            let admin = try PostgresTestServer.adminURL()
            let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            let adminDatabase = try await Database.connect(admin, poolSize: 1, logger: TestLogger.quiet)
            try await adminDatabase.withConnection { try await $0.raw("CREATE DATABASE \(unsafeRaw: name)").run() }
            do {
                let result = try await body(try PostgresTestServer.url(admin, database: name))
                try? await adminDatabase.withConnection { try await $0.raw("DROP DATABASE IF EXISTS \(unsafeRaw: name) WITH (FORCE)").run() }
                await adminDatabase.shutdown()
                return result
            } catch {
                try? await adminDatabase.withConnection { try await $0.raw("DROP DATABASE IF EXISTS \(unsafeRaw: name) WITH (FORCE)").run() }
                await adminDatabase.shutdown()
                throw error
            }
        }
    }

    /// A connected, empty database for one test; closed and dropped afterwards.
    public func withFreshDatabase<T: Sendable>(
        poolSize: Int = 4, preparesStatements: Bool = true, busyTimeout: Duration = .seconds(10),
        _ body: (Database) async throws -> T
    ) async throws -> T {
        try await withFreshDatabaseURL { url in
            let database = try await Database.connect(
                url, poolSize: poolSize, preparesStatements: preparesStatements, busyTimeout: busyTimeout,
                logger: TestLogger.quiet
            )
            do {
                let result = try await body(database)
                await database.shutdown()
                return result
            } catch {
                await database.shutdown()
                throw error
            }
        }
    }
}

public enum PostgresTestServer {
    /// The server's URL from `TEST_POSTGRES_URL`, e.g. `postgres://postgres@127.0.0.1:54329/postgres`.
    public static func adminURL() throws -> DatabaseURL {
        guard let text = ProcessInfo.processInfo.environment["TEST_POSTGRES_URL"], !text.isEmpty else {
            throw ConfigurationError(variable: "TEST_POSTGRES_URL", reason: "is required for PostgreSQL tests (scripts/test.sh sets it)")
        }
        return try DatabaseURL(parsing: text, variable: "TEST_POSTGRES_URL")
    }

    /// The same server with another database name.
    public static func url(_ admin: DatabaseURL, database: String) throws -> DatabaseURL {
        guard case .postgres(let text) = admin, var components = URLComponents(string: text) else {
            throw ConfigurationError(variable: "TEST_POSTGRES_URL", reason: "must be a postgres:// URL")
        }
        components.path = "/" + database
        return try DatabaseURL(parsing: components.string!, variable: "TEST_POSTGRES_URL")
    }
}

public enum TestLogger {
    /// A logger that prints only errors (set `TEST_LOG_LEVEL=debug` to see more).
    public static var quiet: Logger {
        var logger = Logger(label: "test")
        let level = ProcessInfo.processInfo.environment["TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .error
        logger.logLevel = level
        return logger
    }
}
