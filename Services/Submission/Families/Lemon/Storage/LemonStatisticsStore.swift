import ExposureCore
import Foundation
import SQLKit
import SubmissionDomain

/// `lemon_statistics`: imported case counts per country and day; a day imported again replaces its counts.
public struct LemonStatisticsStore: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// A country's latest counts and when they were imported.
    struct Latest: Sendable {
        let count: LemonDailyCount
        let importedAt: Int64
    }

    func store(_ counts: [LemonDailyCount], now: Date) async throws {
        try await database.transaction { connection in
            for count in counts {
                try await connection.raw("""
                    INSERT INTO lemon_statistics (country, day, contracted, deaths, recovered, imported_at)
                    VALUES (\(bind: count.country), \(bind: count.day), \(bind: count.contracted), \(bind: count.deaths), \(bind: count.recovered),
                        \(bind: now.epochSeconds))
                    ON CONFLICT (country, day) DO UPDATE SET contracted = excluded.contracted, deaths = excluded.deaths,
                        recovered = excluded.recovered, imported_at = excluded.imported_at
                    """).run()
            }
        }
    }

    func latest(country: String) async throws -> Latest? {
        try await database.withConnection { connection in
            guard let row = try await connection.raw("""
                SELECT country, day, contracted, deaths, recovered, imported_at FROM lemon_statistics
                WHERE country = \(bind: country) ORDER BY day DESC LIMIT 1
                """).first()
            else { return nil }
            return Latest(
                count: LemonDailyCount(
                    country: try row.decode(column: "country", as: String.self), day: try row.decode(column: "day", as: String.self),
                    contracted: try row.decode(column: "contracted", as: Int64.self), deaths: try row.decode(column: "deaths", as: Int64.self),
                    recovered: try row.decode(column: "recovered", as: Int64.self)
                ),
                importedAt: try row.decode(column: "imported_at", as: Int64.self)
            )
        }
    }
}
