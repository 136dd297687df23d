import ExposureCore
import SQLKit

extension Database {
    /// Opens `count` of the pool's connections at once and keeps them open, so that a race test's contenders each
    /// find a connection ready. A pool opens connections on demand, and opening one takes longer than a whole
    /// reservation: without this the first contender has finished before the second is connected, and a race test
    /// passes even against SQL that does not guard the race. PostgreSQL only: SQLite's connections are opened with
    /// the database and shared, so there is nothing to open (and waiting for `count` of them would wait for ever).
    public func openConnections(_ count: Int) async throws {
        guard dialect == .postgres else { return }
        let barrier = StartBarrier(count)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<count {
                group.addTask {
                    try await self.withConnection { connection in
                        await barrier.arrive()
                        try await connection.raw("SELECT 1").run()
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}
