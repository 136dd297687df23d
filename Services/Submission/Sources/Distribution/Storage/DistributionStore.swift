import ExposureCore
import Foundation
import NIOCore
import SQLKit
import SubmissionDomain
import Synchronization

/// What distribution reads and records: the keys a run may publish (transmission risk level at least
/// `minimumRiskLevel`, submitted in the last `lookbackDays` days), the hour each was published in, and the last
/// hour planned.
public struct DistributionStore: Sendable {
    let database: Database
    public var minimumRiskLevel: Int
    public var lookbackDays: Int
    /// Keys recorded per transaction, about: each commit of SQLite's writes pages that later ones write again when
    /// the keys lie all over the table, so a transaction per hour made a first run half as long again.
    public var keysPerTransaction = 50_000

    /// Keys per statement that records placements: PostgreSQL's UPDATE, SQLite's INSERT into a temporary table.
    static let recordChunkSize = 5_000

    public init(database: Database, minimumRiskLevel: Int = 3, lookbackDays: Int = 10) {
        self.database = database
        self.minimumRiskLevel = minimumRiskLevel
        self.lookbackDays = lookbackDays
    }

    /// The keys a run at `now` reads: every key no run has placed, and the placed keys of the hours in `placedHours`
    /// (nil: of every hour). A run in operation reads only the hours of the files it writes, a few thousand keys
    /// instead of the whole window.
    public func state(now: Date, placedHours: [Range<Int64>]? = nil) async throws -> PublicationState {
        let firstHour = Int64(now.timeIntervalSince1970) / 3600 - Int64(lookbackDays) * 24
        let hours = (placedHours ?? [Int64.min..<Int64.max]).filter { !$0.isEmpty }
        // Rows are decoded as they arrive instead of being collected first: a million rows of a database driver
        // weigh several times the compact keys.
        let collector = KeyCollector()
        let numbersRows = database.dialect == .sqlite
        let plannedThroughHour = try await database.withConnection { connection in
            try await connection.forEachRow(
                SelectKeys.self,
                binds: [
                    minimumRiskLevel, firstHour, hours.map(\.lowerBound).min() ?? 1, (hours.map(\.upperBound).max() ?? 1) - 1,
                    hours.map(\.lowerBound), hours.map { $0.upperBound - 1 },
                ],
                otherwise: Self.selectKeys(minimumRiskLevel: minimumRiskLevel, firstHour: firstHour, hours: hours)
            ) { columns in
                let rowID = numbersRows ? try columns.next(Int64.self) : 0
                let keyData = try columns.next(Data.self)
                let (start, period, level, type): (Int32, Int32, Int32, Int32) =
                    (try columns.next(), try columns.next(), try columns.next(), try columns.next())
                // A key of another length, or with a field `ExportableKey` cannot hold: no submission stores one.
                guard keyData.count == 16,
                    ExportableKey.fits(rollingPeriod: period, transmissionRiskLevel: level, submissionType: type)
                else { return }
                let key = ExportableKey(
                    keyData: Array(keyData), rollingStartIntervalNumber: start, rollingPeriod: period, transmissionRiskLevel: level,
                    submissionType: type, submissionHour: try columns.next(), storeLocator: rowID
                )
                collector.add(key, publishedHour: try columns.next(Int64?.self))
            }
            return try await Self.plannedThroughHour(on: connection)
        }
        var state = collector.finish()
        state.plannedThroughHour = plannedThroughHour
        return state
    }

    /// The columns both forms of the read select, in this order.
    private static let keyColumns = """
        key_data, rolling_start_interval_number, rolling_period, transmission_risk_level, submission_type,
        submission_timestamp, published_hour
        """

    /// The statement's text is the same for any hours: their runs are two arrays of first and last hours, and
    /// the first and last of all ($3, $4), which spare most rows of an hourly run the look into the arrays (that
    /// look took half of its time, 1,000,000 keys). PostgreSQL chooses how to read the table by its statistics.
    private enum SelectKeys: PreparedStatement {
        static let sql = """
            SELECT \(keyColumns) FROM diagnosis_keys
            WHERE transmission_risk_level >= $1 AND submission_timestamp >= $2 AND pending_reservation IS NULL
                AND (published_hour IS NULL
                    OR (published_hour BETWEEN $3 AND $4
                        AND EXISTS (SELECT 1 FROM unnest($5::BIGINT[], $6::BIGINT[]) AS placed(from_hour, to_hour)
                            WHERE published_hour BETWEEN placed.from_hour AND placed.to_hour)))
            """
    }

    /// SQLite's form, with each row's number first (kept as `ExportableKey.storeLocator`). The window holds most of
    /// the table (10 of 14 days by default): SQLite reads the table in order faster than it follows the submission-time index
    /// to rows all over it (2.5 times, 1,000,000 keys).
    private static func selectKeys(minimumRiskLevel: Int, firstHour: Int64, hours: [Range<Int64>]) -> SQLQueryString {
        let ranges = hours.map { hours -> SQLQueryString in
            "published_hour BETWEEN \(bind: hours.lowerBound) AND \(bind: hours.upperBound - 1)"
        }
        return """
            SELECT rowid, \(unsafeRaw: keyColumns) FROM diagnosis_keys NOT INDEXED
            WHERE transmission_risk_level >= \(bind: minimumRiskLevel) AND submission_timestamp >= \(bind: firstHour)
                AND pending_reservation IS NULL AND (
            """ + (["published_hour IS NULL"] + ranges).joined(separator: " OR ") + ")"
    }

    /// The last complete hour an earlier run planned; nil before the first run.
    public func plannedThroughHour() async throws -> Int64? {
        try await database.withConnection { try await Self.plannedThroughHour(on: $0) }
    }

    private static func plannedThroughHour(on connection: any SQLDatabase) async throws -> Int64? {
        try await connection.raw("SELECT planned_through_hour FROM distribution_progress WHERE id = 1")
            .first()?.decode(column: "planned_through_hour", as: Int64.self)
    }

    /// Records the hour each placed key is published in and the last hour planned.
    ///
    /// In the order of the hours, in transactions of whole hours and about `keysPerTransaction` keys, each of which
    /// also moves the planned hour to its last hour. A run stopped midway (or one whose database gave up) leaves a
    /// consistent record, the hours up to one and none after, which the next run continues; and no transaction
    /// grows with the whole window, which a first run over a national database would need minutes for
    /// (PostgreSQL: about 24 µs a key here), past `DATABASE_TIMEOUT`. The keys are those `state` read: on SQLite
    /// their row numbers say where they are (`KeyNotReadFromStore` otherwise).
    public func record(_ placements: [(hour: Int64, keys: [ExportableKey])], plannedThroughHour: Int64) async throws {
        var batch: [(hour: Int64, keys: [ExportableKey])] = []
        var keysInBatch = 0
        for placement in placements {
            batch.append(placement)
            keysInBatch += placement.keys.count
            if keysInBatch >= keysPerTransaction {
                try await record(batch, through: placement.hour)
                batch = []
                keysInBatch = 0
            }
        }
        try await record(batch, through: plannedThroughHour)
    }

    private func record(_ placements: [(hour: Int64, keys: [ExportableKey])], through plannedThroughHour: Int64) async throws {
        let dialect = database.dialect
        try await database.transaction { connection in
            switch dialect {
            case .postgres: try await Self.markPublished(placements, on: connection)
            case .sqlite: try await Self.markPublishedInTableOrder(placements, on: connection)
            }
            try await Self.setPlannedThroughHour(plannedThroughHour, on: connection)
        }
    }

    private static func setPlannedThroughHour(_ hour: Int64, on connection: any SQLDatabase) async throws {
        try await connection.raw("""
            INSERT INTO distribution_progress (id, planned_through_hour) VALUES (1, \(bind: hour))
            ON CONFLICT (id) DO UPDATE SET planned_through_hour = excluded.planned_through_hour
            """).run()
    }

    /// PostgreSQL's form: an UPDATE per hour and submission type (a key is named by its data and type; an hour's
    /// keys usually share one type), the key data as one array bind, so the statement's text is the same for every
    /// chunk.
    private static func markPublished(_ placements: [(hour: Int64, keys: [ExportableKey])], on connection: any SQLDatabase) async throws {
        for (hour, keys) in placements {
            let types = Set(keys.map(\.submissionType))
            for type in types.sorted() {
                let keysOfType = types.count == 1 ? keys : keys.filter { $0.submissionType == type }
                for start in stride(from: 0, to: keysOfType.count, by: recordChunkSize) {
                    let keyData = keysOfType[start..<min(start + recordChunkSize, keysOfType.count)].map { ByteBuffer(bytes: $0.keyData) }
                    _ = try await connection.execute(MarkPublished.self, binds: [hour, keyData, type])
                }
            }
        }
    }

    private enum MarkPublished: PreparedStatement {
        static let sql = "UPDATE diagnosis_keys SET published_hour = $1 WHERE key_data = ANY($2::BYTEA[]) AND submission_type = $3"
    }

    /// SQLite's form: the transaction's placements go into a temporary table in the order of the rows they name,
    /// and one UPDATE walks the table in that order, so each page of it is written once. Named by key data, each
    /// key's lookup went through the primary key's index to a row anywhere in the table, and pages written early in
    /// a transaction were written again by its later keys: 3.7 million reads and writes of 4 KB for a first run
    /// over 1,000,000 keys (docs/benchmarks.md, twenty-ninth round).
    ///
    /// A row whose data and type are no longer the key's keeps its hour: SQLite may give a new row the number of
    /// the table's last row if that one was deleted after the read.
    private static func markPublishedInTableOrder(
        _ placements: [(hour: Int64, keys: [ExportableKey])], on connection: any SQLDatabase
    ) async throws {
        var placed: [(key: ExportableKey, hour: Int64)] = []
        placed.reserveCapacity(placements.reduce(0) { $0 + $1.keys.count })
        for (hour, keys) in placements {
            for key in keys {
                guard key.storeLocator > 0 else { throw KeyNotReadFromStore() }
                placed.append((key, hour))
            }
        }
        guard !placed.isEmpty else { return }
        placed.sort { $0.key.storeLocator < $1.key.storeLocator }
        // The table lives for this transaction; one left behind on the connection by a rollback that failed too
        // would stop every later record.
        try await connection.raw("DROP TABLE IF EXISTS temp.placed_keys").run()
        try await connection.raw("""
            CREATE TABLE temp.placed_keys (
                stored_row INTEGER PRIMARY KEY, key_data BLOB NOT NULL, submission_type INTEGER NOT NULL, hour BIGINT NOT NULL
            )
            """).run()
        // One bind per statement, a JSON array that SQLite takes apart: four binds a key, one value at a time, cost
        // more CPU than the walk saved.
        for start in stride(from: 0, to: placed.count, by: recordChunkSize) {
            let rows = PlacementRows(placed[start..<min(start + recordChunkSize, placed.count)])
            try await connection.raw("""
                INSERT OR REPLACE INTO placed_keys (stored_row, key_data, submission_type, hour)
                SELECT value ->> 0, unhex(value ->> 1), value ->> 2, value ->> 3 FROM json_each(\(bind: rows.json))
                """).run()
        }
        try await connection.raw("""
            UPDATE diagnosis_keys SET published_hour = COALESCE((
                SELECT hour FROM placed_keys AS placed WHERE placed.stored_row = diagnosis_keys.rowid
                    AND placed.key_data = diagnosis_keys.key_data AND placed.submission_type = diagnosis_keys.submission_type
            ), published_hour)
            WHERE rowid IN (SELECT stored_row FROM placed_keys)
            """).run()
        try await connection.raw("DROP TABLE placed_keys").run()
    }
}

/// Placements as JSON for SQLite's `json_each`: `[[row, "key data in hex", submission type, hour], …]`.
struct PlacementRows {
    let json: String

    init(_ placements: ArraySlice<(key: ExportableKey, hour: Int64)>) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(placements.count * 72)
        bytes.append(UInt8(ascii: "["))
        for (offset, (key, hour)) in placements.enumerated() {
            if offset > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "["))
            bytes += String(key.storeLocator).utf8
            bytes += #",""#.utf8
            bytes.appendHex(of: key.keyData)
            bytes += #"","#.utf8
            bytes += String(key.submissionType).utf8
            bytes.append(UInt8(ascii: ","))
            bytes += String(hour).utf8
            bytes.append(UInt8(ascii: "]"))
        }
        bytes.append(UInt8(ascii: "]"))
        json = String(decoding: bytes, as: UTF8.self)
    }
}

/// A key to record on SQLite that `DistributionStore.state` did not read, so has no row number: the keys of the
/// placements come from the state.
struct KeyNotReadFromStore: Error, CustomStringConvertible {
    var description: String { "a placed key was not read from the store: its row is unknown" }
}

/// Gathers keys as the driver hands them over (SQLite's from its connection's thread, hence the lock).
private final class KeyCollector: Sendable {
    private let state = Mutex(PublicationState())

    func add(_ key: ExportableKey, publishedHour: Int64?) {
        state.withLock { state in
            if let publishedHour {
                state.published[publishedHour, default: []].append(key)
            } else {
                state.unpublished.append(key)
            }
        }
    }

    func finish() -> PublicationState {
        state.withLock { $0 }
    }
}
