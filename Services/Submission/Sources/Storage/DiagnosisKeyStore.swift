import ExposureCore
import Foundation
import NIOCore
import SQLKit

/// What one stored submission wrote.
public struct StoreOutcome: Sendable, Equatable {
    /// Real keys inserted (keys already stored are skipped and not counted).
    public var inserted: Int
    /// Random padding keys inserted.
    public var paddingInserted: Int
}

/// A stored key with its submission hour, as retention and distribution read it.
public struct StoredDiagnosisKey: Sendable, Equatable {
    public var key: DiagnosisKey
    /// Hours since the epoch at which the key was submitted.
    public var submissionHour: Int64
}

/// Queries on `diagnosis_keys`.
public struct DiagnosisKeyStore: Sendable {
    let database: Database

    /// Rows per INSERT on SQLite: 11 binds a row keeps a statement far below its bind limit.
    static let chunkSize = 200
    static let columns = """
        key_data, rolling_start_interval_number, rolling_period, transmission_risk_level, days_since_onset_of_symptoms,
        report_type, origin_country, visited_countries, consent_to_federation, submission_type, submission_timestamp
        """

    public init(database: Database) {
        self.database = database
    }

    /// Inserts the keys of one submission and commits only if `authorize` returns.
    ///
    /// The keys are written first and the transaction is held open while `authorize` asks verification to
    /// spend the TAN. A database failure therefore happens before the TAN is spent (the app can retry with
    /// it), and a refused TAN rolls the keys back. A key already stored with the same submission type is
    /// skipped, not an error. On SQLite the transaction holds the write lock meanwhile, so submissions queue;
    /// on PostgreSQL they only wait for each other when they carry the same key.
    public func store(
        _ keys: [DiagnosisKey],
        padding: [DiagnosisKey],
        submittedAt now: Date,
        authorize: @escaping @Sendable () async throws -> Void
    ) async throws -> StoreOutcome {
        let hour = Self.hour(of: now)
        let dialect = database.dialect
        return try await database.transaction { connection in
            let inserted = try await Self.insert(keys, hour: hour, dialect: dialect, on: connection)
            // Padding goes with new keys only: a repeat of a submission (a retry, or the same TAN and keys sent
            // again within `Lifetimes.tanRepeat`) inserts none, and must not add fresh padding each time.
            let paddingInserted = inserted > 0 ? try await Self.insert(padding, hour: hour, dialect: dialect, on: connection) : 0
            try await authorize()
            return StoreOutcome(inserted: inserted, paddingInserted: paddingInserted)
        }
    }

    /// Deletes keys submitted before `now - retentionDays`; returns how many. Only one replica runs it at a time.
    public func applyRetention(retentionDays: Int, now: Date) async throws -> Int {
        let cutoff = Self.hour(of: now) - Int64(retentionDays) * 24
        let deleted = try await JobLock.runExclusively("submission.retention", on: database) { connection in
            try await connection.raw("DELETE FROM diagnosis_keys WHERE submission_timestamp < \(bind: cutoff) RETURNING submission_type").all().count
        }
        return deleted ?? 0
    }

    /// Every stored key, ordered by key data (for tests and the operator's checks; distribution pages by hour).
    public func all() async throws -> [StoredDiagnosisKey] {
        try await database.withConnection { connection in
            try await connection.raw("SELECT \(unsafeRaw: Self.columns) FROM diagnosis_keys ORDER BY key_data, submission_type").all().map(Self.decode)
        }
    }

    public func count() async throws -> Int {
        try await database.withConnection { connection in
            try await connection.raw("SELECT COUNT(*) AS n FROM diagnosis_keys").first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    static func hour(of date: Date) -> Int64 { date.epochSeconds / 3600 }

    /// Inserts `keys`, skipping those already stored; returns how many were inserted.
    private static func insert(
        _ keys: [DiagnosisKey], hour: Int64, dialect: Database.Dialect, on connection: any SQLDatabase
    ) async throws -> Int {
        guard !keys.isEmpty else { return 0 }
        switch dialect {
        case .postgres: return try await connection.execute(ColumnArrayInsert.self, binds: ColumnArrayInsert.binds(keys, hour: hour)).count
        case .sqlite: return try await insertRows(keys, hour: hour, on: connection)
        }
    }

    /// PostgreSQL: one prepared statement whose text does not depend on the number of keys, one array bind per
    /// column.
    ///
    /// A row of binds per key (the SQLite form) costs PostgreSQL a parse and plan of a statement with 11 binds
    /// per key on every submission, and this process the serializing and encoding of each bind.
    private enum ColumnArrayInsert: PreparedStatement {
        static let sql = """
            INSERT INTO diagnosis_keys (\(DiagnosisKeyStore.columns)) \
            SELECT k.*, $11 FROM unnest($1::BYTEA[], $2::INTEGER[], $3::INTEGER[], $4::INTEGER[], $5::INTEGER[], \
            $6::INTEGER[], $7::TEXT[], $8::TEXT[], $9::BOOLEAN[], $10::INTEGER[]) AS k \
            ON CONFLICT (key_data, submission_type) DO NOTHING RETURNING submission_type
            """

        static func binds(_ keys: [DiagnosisKey], hour: Int64) -> [any PreparedBind] {
            let ints: (KeyPath<DiagnosisKey, Int32>) -> [Int32] = { path in keys.map { $0[keyPath: path] } }
            return [
                // NIO's ByteBuffer is the byte type PostgresNIO encodes straight into a BYTEA array.
                keys.map { ByteBuffer(bytes: $0.keyData) }, ints(\.rollingStartIntervalNumber), ints(\.rollingPeriod),
                ints(\.transmissionRiskLevel), ints(\.daysSinceOnsetOfSymptoms), ints(\.reportType), keys.map(\.originCountry),
                keys.map { $0.visitedCountries.joined(separator: ",") }, keys.map(\.consentToFederation), ints(\.submissionType),
                hour,
            ]
        }
    }

    /// SQLite has no arrays: a row of binds per key, in chunks that stay below its bind limit.
    private static func insertRows(_ keys: [DiagnosisKey], hour: Int64, on connection: any SQLDatabase) async throws -> Int {
        var inserted = 0
        for start in stride(from: 0, to: keys.count, by: chunkSize) {
            var query = SQLQueryString("INSERT INTO diagnosis_keys (\(unsafeRaw: columns)) VALUES ")
            for (offset, key) in keys[start..<min(start + chunkSize, keys.count)].enumerated() {
                if offset > 0 { query.appendLiteral(", ") }
                query.appendInterpolation("""
                    (\(bind: key.keyData), \(bind: key.rollingStartIntervalNumber), \(bind: key.rollingPeriod), \
                    \(bind: key.transmissionRiskLevel), \(bind: key.daysSinceOnsetOfSymptoms), \(bind: key.reportType), \
                    \(bind: key.originCountry), \(bind: key.visitedCountries.joined(separator: ",")), \
                    \(bind: key.consentToFederation), \(bind: key.submissionType), \(bind: hour))
                    """ as SQLQueryString)
            }
            // RETURNING lists only the rows actually inserted, so skipped duplicates are not counted.
            query.appendLiteral(" ON CONFLICT (key_data, submission_type) DO NOTHING RETURNING submission_type")
            inserted += try await connection.raw(query).all().count
        }
        return inserted
    }

    private static func decode(_ row: any SQLRow) throws -> StoredDiagnosisKey {
        let visited = try row.decode(column: "visited_countries", as: String.self)
        return StoredDiagnosisKey(
            key: DiagnosisKey(
                keyData: try row.decode(column: "key_data", as: Data.self),
                rollingStartIntervalNumber: try row.decode(column: "rolling_start_interval_number", as: Int32.self),
                rollingPeriod: try row.decode(column: "rolling_period", as: Int32.self),
                transmissionRiskLevel: try row.decode(column: "transmission_risk_level", as: Int32.self),
                daysSinceOnsetOfSymptoms: try row.decode(column: "days_since_onset_of_symptoms", as: Int32.self),
                reportType: try row.decode(column: "report_type", as: Int32.self),
                originCountry: try row.decode(column: "origin_country", as: String.self),
                visitedCountries: visited.isEmpty ? [] : visited.split(separator: ",").map(String.init),
                consentToFederation: try row.decode(column: "consent_to_federation", as: Bool.self),
                submissionType: try row.decode(column: "submission_type", as: Int32.self)
            ),
            submissionHour: try row.decode(column: "submission_timestamp", as: Int64.self)
        )
    }
}
