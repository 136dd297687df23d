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
    /// Where the listeners apps, labs and officers reach bind (`BIND_HOST`, default 0.0.0.0).
    public var bindHost: String
    /// Where internal listeners, which only other services call, bind (`INTERNAL_BIND_HOST`, default 127.0.0.1).
    /// A deployment whose services run on separate hosts sets the address of a network apps cannot reach.
    public var internalBindHost: String
    /// The operators' listener: `/metrics` and the health probes (`MANAGEMENT_BIND_HOST`, default 127.0.0.1, and
    /// `MANAGEMENT_PORT`, the service's default). Never the address of a listener apps, labs or officers reach.
    public var managementListener: ListenerAddress
    /// Idle timeout, read deadline and connection cap of every listener (`HTTP_*`, see `ListenerLimits`).
    public var listenerLimits: ListenerLimits

    /// - Parameters:
    ///   - defaultDatabase: the embedded default for this service (`sqlite://data/<service>.db`).
    ///   - defaultPoolSize: `DATABASE_POOL_SIZE` when unset; larger for a service whose requests hold a connection
    ///     while they wait for another service.
    ///   - managementPort: `MANAGEMENT_PORT` when unset (8012, 8022, 8032, 8042: the service's ports ending in 2).
    public init(_ settings: Settings, defaultDatabase: String, defaultPoolSize: Int = 8, managementPort: Int = 0) throws(ConfigurationError) {
        databaseURL = try DatabaseURL(parsing: try settings.string("DATABASE_URL", default: defaultDatabase))
        databasePoolSize = try settings.int("DATABASE_POOL_SIZE", default: defaultPoolSize, in: 1...200)
        databaseTimeout = try settings.duration("DATABASE_TIMEOUT", default: .seconds(30), minimum: .seconds(1))
        databasePreparedStatements = try settings.bool("DATABASE_PREPARED_STATEMENTS", default: true)
        let level = try settings.choice("LOG_LEVEL", default: "info", among: ["trace", "debug", "info", "notice", "warning", "error", "critical"])
        logLevel = Logger.Level(rawValue: level)!
        logFormat = StructuredLogHandler.Format(rawValue: try settings.choice("LOG_FORMAT", default: "logfmt", among: ["logfmt", "json"]))!
        bindHost = try settings.string("BIND_HOST", default: "0.0.0.0")
        internalBindHost = try settings.string("INTERNAL_BIND_HOST", default: "127.0.0.1")
        managementListener = ListenerAddress(
            host: try settings.string("MANAGEMENT_BIND_HOST", default: "127.0.0.1"),
            port: try settings.port("MANAGEMENT_PORT", default: managementPort)
        )
        listenerLimits = try ListenerLimits(settings)
    }
}
