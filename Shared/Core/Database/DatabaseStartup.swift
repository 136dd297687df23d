import Foundation
import Logging

extension Database {
    /// Opens the database a service is configured with and applies its migrations, retrying the connection
    /// for a while so that a service started together with its database (docker compose) waits for it.
    public static func open(
        _ settings: CommonSettings,
        migrator: Migrator,
        environment: ServiceEnvironment,
        connectAttempts: Int = 30
    ) async throws -> Database {
        let database = try await Database.connect(
            settings.databaseURL, pool: migrator.service, poolSize: settings.databasePoolSize, operationTimeout: settings.databaseTimeout,
            preparesStatements: settings.databasePreparedStatements, logger: environment.logger
        )
        var attempt = 1
        while true {
            do {
                try await database.ping()
                break
            } catch {
                guard attempt < connectAttempts else {
                    await database.shutdown()
                    throw DatabaseUnavailable(url: settings.databaseURL, underlying: error)
                }
                environment.logger.warning("database not reachable yet; retrying", metadata: ["database": "\(settings.databaseURL)", "attempt": "\(attempt)"])
                try await Task.sleep(for: .seconds(1))
                attempt += 1
            }
        }
        do {
            try await migrator.migrate(database, clock: environment.clock, logger: environment.logger)
        } catch {
            await database.shutdown()
            throw error
        }
        return database
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
    public var description: String { "cannot reach the database at \(url): \(String(describing: underlying))" }
}
