import Foundation
import Logging

/// Settings every service reads the same way.
public struct CommonSettings: Sendable {
    public var databaseURL: DatabaseURL
    public var databasePoolSize: Int
    /// The longest one PostgreSQL operation may take before the request fails (see `OperationDeadline`).
    public var databaseTimeout: Duration
    public var logLevel: Logger.Level
    public var logFormat: StructuredLogHandler.Format
    public var bindHost: String

    /// - Parameter defaultDatabase: the embedded default for this service (`sqlite://data/<service>.db`).
    public init(_ settings: Settings, defaultDatabase: String) throws(ConfigurationError) {
        databaseURL = try DatabaseURL(parsing: settings.string("DATABASE_URL", default: defaultDatabase))
        databasePoolSize = try settings.int("DATABASE_POOL_SIZE", default: 8, in: 1...200)
        databaseTimeout = try settings.duration("DATABASE_TIMEOUT", default: .seconds(30), minimum: .seconds(1))
        let level = try settings.choice("LOG_LEVEL", default: "info", among: ["trace", "debug", "info", "notice", "warning", "error", "critical"])
        logLevel = Logger.Level(rawValue: level)!
        logFormat = StructuredLogHandler.Format(rawValue: try settings.choice("LOG_FORMAT", default: "logfmt", among: ["logfmt", "json"]))!
        bindHost = settings.string("BIND_HOST", default: "0.0.0.0")
    }
}
