import Logging
import PostgresKit
import PostgresNIO

/// One connection to PostgreSQL as `DATABASE_URL` describes it, opened and closed again: what start-up tries until the
/// server accepts it. The pool is no help there: after a few failed connections it answers every request with its
/// circuit breaker's state, and the server's reason (a wrong password, a missing database) reaches only its log.
enum PostgresProbe {
    /// Nil when the server accepted the connection; otherwise why it did not.
    static func connect(url: String, timeout: Duration) async -> DatabaseConnectFailure? {
        var configuration: PostgresConnection.Configuration
        do {
            configuration = try SQLPostgresConfiguration(url: url).coreConfiguration
        } catch {
            return DatabaseConnectFailure(cause: "DATABASE_URL is not a PostgreSQL URL this service can use", isTransient: false)
        }
        // At least a second: the last attempt before DATABASE_TIMEOUT must not time out for want of time and hide
        // the cause (a refusal) behind a timeout.
        let bound = max(.seconds(1), min(timeout, .seconds(10)))
        configuration.options.connectTimeout = .milliseconds(bound.components.seconds * 1000 + bound.components.attoseconds / 1_000_000_000_000_000)
        // PostgresNIO logs a refused connection at info level itself; the one line start-up writes says it instead.
        var logger = Logger(label: "exposure.database.probe")
        logger.logLevel = .critical
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            try? await connection.close()
            return nil
        } catch {
            return DatabaseConnectFailure(
                error, host: configuration.host ?? "localhost", port: configuration.port ?? 5432,
                user: configuration.username, database: configuration.database
            )
        }
    }
}
