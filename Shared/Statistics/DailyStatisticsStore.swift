import ExposureCore
import Foundation
import SQLKit

/// A service's daily counts in its own database: one row per day, figure and breakdown, which every replica's
/// flush adds to (`count = count + delta`), so that replicas add up and a restart keeps what was flushed.
public struct DailyStatisticsStore: Sendable {
    /// Rows per statement of a flush.
    static let chunkSize = 200

    let database: Database
    /// `<service>_daily_counts`: a table of each service's own, so that services sharing one database keep apart.
    public let table: String

    public init(database: Database, service: String) {
        self.database = database
        self.table = Self.table(service: service)
    }

    public static func table(service: String) -> String { "\(service)_daily_counts" }

    /// The statements of the migration that creates `service`'s table (each service's migration list holds it under
    /// a version of its own).
    public static func createTable(service: String) -> [String] {
        let table = table(service: service)
        return [
            """
            CREATE TABLE \(table) (
                day BIGINT NOT NULL,
                figure TEXT NOT NULL,
                breakdown TEXT NOT NULL,
                count BIGINT NOT NULL,
                PRIMARY KEY (day, figure, breakdown)
            )
            """,
        ]
    }

    /// Adds `deltas` to the stored counts, in one transaction: all of them or none.
    public func add(_ deltas: [DailyCounter.Key: Int64]) async throws {
        let rows = deltas.filter { $0.value > 0 }.sorted { ($0.key.day, $0.key.figure, $0.key.breakdown) < ($1.key.day, $1.key.figure, $1.key.breakdown) }
        guard !rows.isEmpty else { return }
        let table = table
        try await database.transaction { connection in
            for start in stride(from: 0, to: rows.count, by: Self.chunkSize) {
                var query = SQLQueryString("INSERT INTO \(unsafeRaw: table) (day, figure, breakdown, count) VALUES ")
                for (offset, row) in rows[start..<min(start + Self.chunkSize, rows.count)].enumerated() {
                    if offset > 0 { query.appendLiteral(", ") }
                    query.appendLiteral("(")
                    query.appendInterpolation(bind: row.key.day.number)
                    query.appendLiteral(", ")
                    query.appendInterpolation(bind: row.key.figure)
                    query.appendLiteral(", ")
                    query.appendInterpolation(bind: row.key.breakdown)
                    query.appendLiteral(", ")
                    query.appendInterpolation(bind: row.value)
                    query.appendLiteral(")")
                }
                // `table` is this type's own name, never input.
                query.appendLiteral(" ON CONFLICT (day, figure, breakdown) DO UPDATE SET count = \(table).count + excluded.count")
                try await connection.raw(query).run()
            }
        }
    }

    /// The stored counts of the days from `from` to `through`, both included, by day, figure and breakdown.
    public func counts(from: StatisticsDay, through: StatisticsDay) async throws -> [DailyCount] {
        let table = table
        return try await database.withConnection { connection in
            try await connection.raw("""
                SELECT day, figure, breakdown, count FROM \(unsafeRaw: table)
                WHERE day >= \(bind: from.number) AND day <= \(bind: through.number)
                ORDER BY day, figure, breakdown
                """).all().map { row in
                DailyCount(
                    day: StatisticsDay(number: try row.decode(column: "day", as: Int64.self)),
                    figure: try row.decode(column: "figure", as: String.self),
                    breakdown: try row.decode(column: "breakdown", as: String.self),
                    count: try row.decode(column: "count", as: Int64.self)
                )
            }
        }
    }

    /// Deletes the days before `day` (retention).
    public func delete(before day: StatisticsDay) async throws {
        let table = table
        try await database.withConnection { connection in
            try await connection.raw("DELETE FROM \(unsafeRaw: table) WHERE day < \(bind: day.number)").run()
        }
    }
}
