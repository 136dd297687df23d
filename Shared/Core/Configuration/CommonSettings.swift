import Foundation
import Logging

/// Settings every service reads the same way.
public struct CommonSettings: Sendable {
    public var databaseURL: DatabaseURL
    public var databasePoolSize: Int
    /// The longest one PostgreSQL operation may take before the request fails (see `OperationDeadline`).
    public var databaseTimeout: Duration
    /// Whether hot PostgreSQL statements are prepared once per connection (`PreparedStatement`).
    public var databasePreparedStatements: Bool
    public var logLevel: Logger.Level
    public var logFormat: StructuredLogHandler.Format
    public var bindHost: String

    /// - Parameters:
    ///   - defaultDatabase: the embedded default for this service (`sqlite://data/<service>.db`).
    ///   - defaultPoolSize: `DATABASE_POOL_SIZE` when unset; larger for a service whose requests hold a connection
    ///     while they wait for another service.
    public init(_ settings: Settings, defaultDatabase: String, defaultPoolSize: Int = 8) throws(ConfigurationError) {
        databaseURL = try DatabaseURL(parsing: settings.string("DATABASE_URL", default: defaultDatabase))
        databasePoolSize = try settings.int("DATABASE_POOL_SIZE", default: defaultPoolSize, in: 1...200)
        databaseTimeout = try settings.duration("DATABASE_TIMEOUT", default: .seconds(30), minimum: .seconds(1))
        databasePreparedStatements = try settings.bool("DATABASE_PREPARED_STATEMENTS", default: true)
        let level = try settings.choice("LOG_LEVEL", default: "info", among: ["trace", "debug", "info", "notice", "warning", "error", "critical"])
        logLevel = Logger.Level(rawValue: level)!
        logFormat = StructuredLogHandler.Format(rawValue: try settings.choice("LOG_FORMAT", default: "logfmt", among: ["logfmt", "json"]))!
        bindHost = settings.string("BIND_HOST", default: "0.0.0.0")
    }
}
