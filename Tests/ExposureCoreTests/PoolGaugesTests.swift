import ExposureCore
import Foundation
import Testing
import ExposureTestSupport

/// The pool gauges an operator alerts on show operations holding a connection and operations waiting for one.
@Suite struct PoolGaugesTests {
    @Test(arguments: TestDatabase.all)
    func anOperationQueuedBehindAFullPoolIsCountedAsWaiting(kind: TestDatabase) async throws {
        Observability.bootstrapMetrics()
        // A pool name of its own: the registry is shared with every other test in the process.
        let pool = "gauges\(UInt32.random(in: 0...UInt32.max))"
        try await kind.withFreshDatabaseURL { url in
            let database = try await Database.connect(url, pool: pool, poolSize: 1, logger: TestLogger.quiet)
            #expect(Self.gauge("database_pool_size", pool: pool) == 1)
            let (released, release) = AsyncStream<Void>.makeStream()
            let holder = Task {
                try await database.transaction { _ in for await _ in released { break } }
            }
            try await waitUntil { Self.gauge("database_connections_in_use", pool: pool) == 1 }
            #expect(Self.gauge("database_operations_waiting", pool: pool) == 0)

            // The pool's one connection is held (on SQLite, its one transaction connection): the next waits.
            let queued = Task { try await database.transaction { try await $0.raw("SELECT 1").run() } }
            try await waitUntil { Self.gauge("database_operations_waiting", pool: pool) == 1 }
            #expect(Self.gauge("database_connections_in_use", pool: pool) == 1)

            release.yield()
            try await holder.value
            try await queued.value
            #expect(Self.gauge("database_connections_in_use", pool: pool) == 0)
            #expect(Self.gauge("database_operations_waiting", pool: pool) == 0)
            await database.shutdown()
        }
    }

    /// The value of `name{pool="…"}` as `/metrics` renders it; nil when the series is not there.
    static func gauge(_ name: String, pool: String) -> Double? {
        var buffer: [UInt8] = []
        Observability.registry.emit(into: &buffer)
        let prefix = "\(name){pool=\"\(pool)\"} "
        let line = String(decoding: buffer, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(prefix) }
        return line.flatMap { Double($0.dropFirst(prefix.count)) }
    }
}
