import Foundation
import Logging

extension Database {
    /// Opens the database a service is configured with and applies its migrations. A PostgreSQL server that is not
    /// there yet (a refused connection, a name that does not resolve yet, a server starting) is waited for until
    /// `DATABASE_TIMEOUT`, so that a service started together with its database waits for it; one that refuses the
    /// credentials or has no such database stops start-up at once. Either way the error says why in words.
    public static func open(
        _ settings: CommonSettings,
        migrator: Migrator,
        environment: ServiceEnvironment
    ) async throws -> Database {
        if case .postgres(let url) = settings.databaseURL {
            try await waitForServer(url, settings: settings, logger: environment.logger)
        }
        let database = try await Database.connect(
            settings.databaseURL, pool: migrator.service, poolSize: settings.databasePoolSize, operationTimeout: settings.databaseTimeout,
            preparesStatements: settings.databasePreparedStatements, logger: environment.logger
        )
        do {
            try await database.ping()
            try await migrator.migrate(database, clock: environment.clock, logger: environment.logger)
        } catch {
            await database.shutdown()
            throw error
        }
        return database
    }

    /// Returns once the server accepts a connection; throws `DatabaseUnavailable` with the cause when it refuses one
    /// for a reason waiting cannot mend, or when `DATABASE_TIMEOUT` has passed.
    static func waitForServer(_ url: String, settings: CommonSettings, logger: Logger) async throws {
        let deadline = ContinuousClock.now + settings.databaseTimeout
        var reported: String?
        while true {
            guard let failure = await PostgresProbe.connect(url: url, timeout: deadline - ContinuousClock.now) else { return }
            guard failure.isTransient, ContinuousClock.now + .seconds(1) < deadline else {
                throw DatabaseUnavailable(url: settings.databaseURL, underlying: failure)
            }
            if failure.cause != reported {
                logger.warning("database not reachable yet; retrying until DATABASE_TIMEOUT", metadata: [
                    "database": "\(settings.databaseURL)", "cause": "\(failure.cause)", "timeout": "\(settings.databaseTimeout)",
                ])
                reported = failure.cause
            }
            try await Task.sleep(for: .seconds(1))
        }
    }

    /// Opens the database as `open` does, runs `body` with it and shuts it down again, whatever `body` does: for the
    /// administration commands, which use the database once and exit.
    public static func withOpened<Output>(
        _ settings: CommonSettings,
        migrator: Migrator,
        environment: ServiceEnvironment,
        _ body: (Database) async throws -> Output
    ) async throws -> Output {
        let database = try await open(settings, migrator: migrator, environment: environment)
        do {
            let output = try await body(database)
            await database.shutdown()
            return output
        } catch {
            await database.shutdown()
            throw error
        }
    }
}

public struct DatabaseUnavailable: Error, CustomStringConvertible {
    public let url: DatabaseURL
    public let underlying: any Error
    public var description: String { "cannot use the database at \(url): \(String(describing: underlying))" }
}
