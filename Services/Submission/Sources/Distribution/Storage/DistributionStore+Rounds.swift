import ExposureCore
import SQLKit

extension DistributionStore {
    /// The last scheduled round that finished (`Distributor.runScheduled`); nil before the first.
    public func lastRound() async throws -> Int64? {
        try await database.withConnection { connection in
            try await connection.raw("SELECT last_round FROM distribution_rounds WHERE id = 1")
                .first()?.decode(column: "last_round", as: Int64.self)
        }
    }

    /// Records `round` as run. Called under the distribution's exclusive lock, so no other run writes meanwhile.
    public func recordRound(_ round: Int64) async throws {
        try await database.withConnection { connection in
            try await connection.raw("""
                INSERT INTO distribution_rounds (id, last_round) VALUES (1, \(bind: round))
                ON CONFLICT (id) DO UPDATE SET last_round = excluded.last_round
                """).run()
        }
    }
}
