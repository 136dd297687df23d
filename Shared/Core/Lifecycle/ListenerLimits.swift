import Foundation

/// What one listener allows its connections, so that clients that connect and then send slowly, or not at all,
/// cannot hold a service's sockets and memory.
///
/// - `idleTimeout` closes a kept-alive connection that sends no next request (Hummingbird's own idle handling).
/// - `readTimeout` closes a connection whose request has not arrived whole this long after its first byte: a client
///   that trickles a header or a body a byte at a time is cut off however steadily it trickles.
/// - `maxConnections` bounds the connections open at once on the listener; one more is closed as soon as it is
///   accepted, before anything is read from it.
public struct ListenerLimits: Sendable, Equatable {
    public var idleTimeout: Duration
    public var readTimeout: Duration
    public var maxConnections: Int

    /// The defaults: 60 s idle, 10 s to read a request (the largest body the services take, 512 kB of keys, is
    /// read in well under a second on a slow mobile link), 10,000 connections per listener.
    public init(idleTimeout: Duration = .seconds(60), readTimeout: Duration = .seconds(10), maxConnections: Int = 10_000) {
        self.idleTimeout = idleTimeout
        self.readTimeout = readTimeout
        self.maxConnections = maxConnections
    }

    /// `HTTP_IDLE_TIMEOUT`, `HTTP_READ_TIMEOUT` and `HTTP_MAX_CONNECTIONS`.
    public init(_ settings: Settings) throws(ConfigurationError) {
        let defaults = ListenerLimits()
        self.init(
            idleTimeout: try settings.duration("HTTP_IDLE_TIMEOUT", default: defaults.idleTimeout, minimum: .milliseconds(100)),
            readTimeout: try settings.duration("HTTP_READ_TIMEOUT", default: defaults.readTimeout, minimum: .milliseconds(100)),
            maxConnections: try settings.int("HTTP_MAX_CONNECTIONS", default: defaults.maxConnections, in: 1...1_000_000)
        )
    }
}
