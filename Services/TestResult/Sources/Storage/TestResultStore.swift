import ExposureCore
import Foundation
import SQLKit
import TestResultDomain

/// A stored result, as the verification service is told it.
public struct StoredResult: Sendable, Equatable {
    public let result: Int
    public let sampleCollection: Int64
    public let labID: String
}

/// What one stored batch changed.
public struct BatchOutcome: Sendable, Equatable {
    /// Rows inserted or corrected.
    public var written: Int
    /// Items not applied because the stored result is redeemed or belongs to another lab.
    public var refused: Int
}

/// Queries on `test_results`.
public struct TestResultStore: Sendable {
    let database: Database

    /// Rows per statement: keeps bind counts far below both databases' limits.
    static let chunkSize = 250

    public init(database: Database) {
        self.database = database
    }

    /// Inserts new ids and corrects existing ones, all in one transaction.
    ///
    /// An existing row is updated only when it is not redeemed and was written by the same lab; a lab cannot
    /// overwrite another lab's result. Duplicates inside one batch: the last one wins.
    public func store(_ results: [ValidResult], labID: String, now: Date) async throws -> BatchOutcome {
        var latest: [String: ValidResult] = [:]
        var order: [String] = []
        for result in results {
            if latest.updateValue(result, forKey: result.id) == nil { order.append(result.id) }
        }
        let unique = order.map { latest[$0]! }
        let timestamp = now.epochSeconds
        return try await database.transaction { connection in
            var written = 0
            for start in stride(from: 0, to: unique.count, by: Self.chunkSize) {
                let chunk = unique[start..<min(start + Self.chunkSize, unique.count)]
                var query = SQLQueryString("INSERT INTO test_results (id, result, sample_collection, lab_id, received_at, updated_at) VALUES ")
                for (offset, item) in chunk.enumerated() {
                    if offset > 0 { query.appendLiteral(", ") }
                    query.appendLiteral("(")
                    query.appendInterpolation(bind: item.id)
                    query.appendLiteral(", ")
                    query.appendInterpolation(bind: item.result.rawValue)
                    query.appendLiteral(", ")
                    query.appendInterpolation(bind: item.sampleCollection)
                    query.appendLiteral(", ")
                    query.appendInterpolation(bind: labID)
                    query.appendLiteral(", ")
                    query.appendInterpolation(bind: timestamp)
                    query.appendLiteral(", ")
                    query.appendInterpolation(bind: timestamp)
                    query.appendLiteral(")")
                }
                query.appendLiteral("""
                     ON CONFLICT (id) DO UPDATE SET result = excluded.result, sample_collection = excluded.sample_collection,
                    updated_at = excluded.updated_at
                    WHERE test_results.result NOT IN \(Self.redeemedCodes) AND test_results.lab_id = excluded.lab_id
                    RETURNING id
                    """)
                written += try await connection.raw(query).all().count
            }
            return BatchOutcome(written: written, refused: unique.count - written)
        }
    }

    public func find(id: String) async throws -> StoredResult? {
        let key = id.lowercased()
        return try await find(ids: [key])[key]
    }

    /// The stored results among `ids` (lower-cased), keyed by id: one query for a whole lookup batch.
    public func find(ids: [String]) async throws -> [String: StoredResult] {
        let unique = Array(Set(ids))
        guard !unique.isEmpty else { return [:] }
        return try await database.withConnection { connection in
            let rows = try await connection.execute(
                ResultRead.self, binds: [unique],
                otherwise: "SELECT \(unsafeRaw: ResultRead.columns) FROM test_results WHERE id IN \(bindList: unique)"
            )
            var found: [String: StoredResult] = [:]
            for row in rows {
                found[try row.decode(column: "id", as: String.self)] = StoredResult(
                    result: try row.decode(column: "result", as: Int.self),
                    sampleCollection: try row.decode(column: "sample_collection", as: Int64.self),
                    labID: try row.decode(column: "lab_id", as: String.self)
                )
            }
            return found
        }
    }

    /// PostgreSQL's form of a lookup batch: one array of ids, so one prepared statement serves every size.
    private enum ResultRead: PreparedStatement {
        static let columns = "id, result, sample_collection, lab_id"
        static let sql = "SELECT \(columns) FROM test_results WHERE id = ANY($1::TEXT[])"
    }

    /// Applies the retention policy; returns (redeemed, deleted) row counts. Safe to run on several replicas at
    /// once: both statements are idempotent, and the job lock keeps them from doing the work twice.
    public func applyRetention(_ policy: RetentionPolicy, now: Date) async throws -> (redeemed: Int, deleted: Int) {
        let redeemCutoff = policy.redeemCutoff(now: now)
        let deleteCutoff = policy.deleteCutoff(now: now)
        let timestamp = now.epochSeconds
        let counts = try await JobLock.runExclusively("testresult.retention", on: database) { connection in
            let deleted = try await connection.raw("DELETE FROM test_results WHERE received_at < \(bind: deleteCutoff) RETURNING id").all().count
            let redeemed = try await connection.raw("""
                UPDATE test_results SET result = CASE WHEN result >= \(unsafeRaw: String(TestResultCode.quickPending.rawValue)) \
                THEN \(unsafeRaw: String(TestResultCode.quickRedeemed.rawValue)) ELSE \(unsafeRaw: String(TestResultCode.redeemed.rawValue)) END, \
                updated_at = \(bind: timestamp)
                WHERE received_at < \(bind: redeemCutoff) AND result NOT IN \(unsafeRaw: Self.redeemedCodes)
                RETURNING id
                """).all().count
            return [redeemed, deleted]
        }
        return (counts?[0] ?? 0, counts?[1] ?? 0)
    }

    /// The redeemed codes as an SQL list, `(4, 9)`: from the domain's rule, numbers only, so safe to splice.
    static let redeemedCodes = "(" + TestResultCode.allCases.filter(\.isRedeemed).map { String($0.rawValue) }.joined(separator: ", ") + ")"
}
