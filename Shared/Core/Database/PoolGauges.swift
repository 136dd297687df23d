import Metrics
import SQLKit
import Synchronization

/// How busy one database pool is, as gauges an operator alerts on: `database_connections_in_use{pool}` (operations
/// holding a connection), `database_operations_waiting{pool}` (operations that asked for one and have none yet) and
/// `database_pool_size{pool}`. Operations waiting while every connection is in use, for minutes, is a pool too small
/// for the load (or a database too slow for it): requests queue behind it until their deadline.
///
/// Two atomics and a gauge write per operation: small beside the round trip it measures.
final class PoolGauges: Sendable {
    private let inFlight = Atomic<Int>(0)
    private let inUse = Atomic<Int>(0)
    private let inUseGauge: Gauge
    private let waitingGauge: Gauge

    init(pool: String, size: Int) {
        let dimensions = [("pool", pool)]
        Gauge(label: "database_pool_size", dimensions: dimensions).record(size)
        inUseGauge = Gauge(label: "database_connections_in_use", dimensions: dimensions)
        waitingGauge = Gauge(label: "database_operations_waiting", dimensions: dimensions)
    }

    /// An operation asks for a connection.
    func asked() { publish(inFlight: inFlight.add(1, ordering: .relaxed).newValue, inUse: inUse.load(ordering: .relaxed)) }

    /// An operation ended, with or without having had a connection.
    func ended() { publish(inFlight: inFlight.subtract(1, ordering: .relaxed).newValue, inUse: inUse.load(ordering: .relaxed)) }

    /// Runs `body` with the connection an operation got, counted as in use meanwhile.
    func holding<T>(_ connection: any SQLDatabase, _ body: (any SQLDatabase) async throws -> T) async rethrows -> T {
        publish(inFlight: inFlight.load(ordering: .relaxed), inUse: inUse.add(1, ordering: .relaxed).newValue)
        defer { publish(inFlight: inFlight.load(ordering: .relaxed), inUse: inUse.subtract(1, ordering: .relaxed).newValue) }
        return try await body(connection)
    }

    /// The two counts are read one after the other, not together: a gauge may be off by one for an instant.
    private func publish(inFlight: Int, inUse: Int) {
        inUseGauge.record(inUse)
        waitingGauge.record(max(0, inFlight - inUse))
    }
}
