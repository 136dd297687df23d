import ExposureCore
import Foundation
import NIOCore
import SQLKit
import SubmissionDomain

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

/// Queries on `diagnosis_keys`. A row is pending (its upload's TAN not yet spent) or publishable; see
/// `DiagnosisKeyStore+Pending`.
public struct DiagnosisKeyStore: Sendable {
    public let database: Database

    /// Rows per INSERT on SQLite: 13 binds a row keeps a statement far below its bind limit.
    static let chunkSize = 200
    public static let columns = """
        key_data, rolling_start_interval_number, rolling_period, transmission_risk_level, days_since_onset_of_symptoms,
        report_type, origin_country, visited_countries, consent_to_federation, submission_type, submission_timestamp
        """

    /// Publications out at once; those that queue behind them go together in one UPDATE (`RequestBatcher`).
    static let publishSlots = 2
    static let publishBatch = 100

    /// The publications of concurrent uploads, batched (`DiagnosisKeyStore+Pending`).
    let publications: RequestBatcher<String, Void>

    public init(database: Database) {
        self.database = database
        publications = RequestBatcher(slots: Self.publishSlots, maxBatch: Self.publishBatch) { reservations in
            try await Self.publish(reservations, in: database)
        }
    }

    /// Stores the keys of one upload as pending, bound to its TAN reservation (`reservation`, the upload's key at
    /// verification), in one short transaction: no call to another service happens inside it. The keys are published
    /// once the reservation is confirmed (`publish`), or deleted when it lapses (`discard`).
    ///
    /// A key already stored and publishable is skipped, not an error. A key still pending for another reservation is
    /// taken over: it belongs to an earlier try of this upload (the same TAN, other keys) whose lease ran out, and
    /// must not be deleted with that try's other keys.
    public func storePending(
        _ keys: [DiagnosisKey], padding: [DiagnosisKey], reservation: String, submittedAt now: Date
    ) async throws -> StoreOutcome {
        let pending = Pending(reservation: reservation, hour: Self.hour(of: now), since: now.epochSeconds)
        let dialect = database.dialect
        // One statement may not write a row twice (PostgreSQL refuses an upsert that would): a key given twice counts once.
        let keys = Self.unique(keys), padding = Self.unique(padding)
        // One statement is atomic by itself: without padding (the default) the keys need no transaction, and the
        // BEGIN and COMMIT round trips are saved.
        if padding.isEmpty, dialect == .postgres || keys.count <= Self.chunkSize {
            return try await database.withConnection { connection in
                StoreOutcome(inserted: try await Self.insert(keys, pending, dialect: dialect, on: connection), paddingInserted: 0)
            }
        }
        return try await database.transaction { connection in
            let inserted = try await Self.insert(keys, pending, dialect: dialect, on: connection)
            // Padding goes with new keys only: a repeat of an upload (a retry with the same TAN and keys) inserts none,
            // and must not add fresh padding each time.
            let paddingInserted = inserted > 0 ? try await Self.insert(padding, pending, dialect: dialect, on: connection) : 0
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

    /// Every publishable key, ordered by key data (for tests and the operator's checks; distribution pages by hour).
    public func all() async throws -> [StoredDiagnosisKey] {
        try await database.withConnection { connection in
            try await connection.raw("""
                SELECT \(unsafeRaw: Self.columns) FROM diagnosis_keys WHERE pending_reservation IS NULL ORDER BY key_data, submission_type
                """).all().map(Self.decode)
        }
    }

    /// How many keys are publishable.
    public func count() async throws -> Int {
        try await database.withConnection { connection in
            try await connection.raw("SELECT COUNT(*) AS n FROM diagnosis_keys WHERE pending_reservation IS NULL").first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    static func hour(of date: Date) -> Int64 { date.epochSeconds / 3600 }

    /// The keys without repeats of a row's identity (key data and submission type), first occurrence kept.
    static func unique(_ keys: [DiagnosisKey]) -> [DiagnosisKey] {
        struct Identity: Hashable {
            let keyData: Data
            let submissionType: Int32
        }
        var seen = Set<Identity>()
        return keys.filter { seen.insert(Identity(keyData: $0.keyData, submissionType: $0.submissionType)).inserted }
    }

    /// What the rows of one upload carry beside their keys.
    struct Pending {
        /// The TAN reservation the rows wait for; nil for rows publishable at once (`insertPublishable`).
        let reservation: String?
        /// Hours since the epoch (`submission_timestamp`).
        let hour: Int64
        /// Seconds since the epoch (`pending_since`), for the recovery job; nil with `reservation`.
        let since: Int64?
    }

    /// Inserts keys publishable at once, on `connection` inside the caller's transaction: for an app family whose
    /// upload credential this service holds itself (a CovidShield key pair), there is no TAN to wait for, and the
    /// keys go in with the credential's charge or not at all. Keys already stored are skipped and not counted (a
    /// pending row keeps its own reservation: `takeOver` compares with NULL, which matches nothing).
    public static func insertPublishable(
        _ keys: [DiagnosisKey], submittedAt now: Date, dialect: Database.Dialect, on connection: any SQLDatabase
    ) async throws -> Int {
        try await insert(unique(keys), Pending(reservation: nil, hour: hour(of: now), since: nil), dialect: dialect, on: connection)
    }

    /// What an insert does with a key already stored: nothing when it is publishable or pending for the same
    /// reservation; when another reservation's, the row becomes this upload's.
    static let takeOver = """
        ON CONFLICT (key_data, submission_type) DO UPDATE SET \
        rolling_start_interval_number = excluded.rolling_start_interval_number, rolling_period = excluded.rolling_period, \
        transmission_risk_level = excluded.transmission_risk_level, \
        days_since_onset_of_symptoms = excluded.days_since_onset_of_symptoms, report_type = excluded.report_type, \
        origin_country = excluded.origin_country, visited_countries = excluded.visited_countries, \
        consent_to_federation = excluded.consent_to_federation, submission_timestamp = excluded.submission_timestamp, \
        pending_reservation = excluded.pending_reservation, pending_since = excluded.pending_since \
        WHERE diagnosis_keys.pending_reservation IS NOT NULL AND diagnosis_keys.pending_reservation <> excluded.pending_reservation \
        RETURNING submission_type
        """

    /// Inserts `keys` as pending (see `storePending`); returns how many rows were written.
    private static func insert(
        _ keys: [DiagnosisKey], _ pending: Pending, dialect: Database.Dialect, on connection: any SQLDatabase
    ) async throws -> Int {
        guard !keys.isEmpty else { return 0 }
        switch dialect {
        case .postgres:
            let binds = ColumnArrayInsert.binds(keys, pending)
            if pending.reservation == nil { return try await connection.execute(PublishableColumnArrayInsert.self, binds: binds).count }
            return try await connection.execute(ColumnArrayInsert.self, binds: binds).count
        case .sqlite: return try await insertRows(keys, pending, on: connection)
        }
    }

    /// PostgreSQL: one prepared statement whose text does not depend on the number of keys, one array bind per
    /// column.
    ///
    /// A row of binds per key (the SQLite form) costs PostgreSQL a parse and plan of a statement with 11 binds
    /// per key on every submission, and this process the serializing and encoding of each bind.
    private enum ColumnArrayInsert: PreparedStatement {
        static let sql = """
            INSERT INTO diagnosis_keys (\(DiagnosisKeyStore.columns), pending_reservation, pending_since) \
            SELECT k.*, $11, $12, $13 FROM unnest($1::BYTEA[], $2::INTEGER[], $3::INTEGER[], $4::INTEGER[], $5::INTEGER[], \
            $6::INTEGER[], $7::TEXT[], $8::TEXT[], $9::BOOLEAN[], $10::INTEGER[]) AS k \
            \(DiagnosisKeyStore.takeOver)
            """

        static func binds(_ keys: [DiagnosisKey], _ pending: Pending) -> [any PreparedBind] {
            let ints: (KeyPath<DiagnosisKey, Int32>) -> [Int32] = { path in keys.map { $0[keyPath: path] } }
            return [
                // NIO's ByteBuffer is the byte type PostgresNIO encodes straight into a BYTEA array.
                keys.map { ByteBuffer(bytes: $0.keyData) }, ints(\.rollingStartIntervalNumber), ints(\.rollingPeriod),
                ints(\.transmissionRiskLevel), ints(\.daysSinceOnsetOfSymptoms), ints(\.reportType), keys.map(\.originCountry),
                keys.map { $0.visitedCountries.joined(separator: ",") }, keys.map(\.consentToFederation), ints(\.submissionType),
                pending.hour,
            ] + (pending.reservation.map { [$0, pending.since ?? 0] as [any PreparedBind] } ?? [])
        }
    }

    /// The same for rows publishable at once (`insertPublishable`): no reservation, no pending time.
    private enum PublishableColumnArrayInsert: PreparedStatement {
        static let sql = ColumnArrayInsert.sql.replacingOccurrences(of: "$11, $12, $13", with: "$11, NULL::TEXT, NULL::BIGINT")
    }

    /// SQLite has no arrays: a row of binds per key, in chunks that stay below its bind limit.
    private static func insertRows(_ keys: [DiagnosisKey], _ pending: Pending, on connection: any SQLDatabase) async throws -> Int {
        var inserted = 0
        for start in stride(from: 0, to: keys.count, by: chunkSize) {
            var query = SQLQueryString("INSERT INTO diagnosis_keys (\(unsafeRaw: columns), pending_reservation, pending_since) VALUES ")
            for (offset, key) in keys[start..<min(start + chunkSize, keys.count)].enumerated() {
                if offset > 0 { query.appendLiteral(", ") }
                query.appendInterpolation("""
                    (\(bind: key.keyData), \(bind: key.rollingStartIntervalNumber), \(bind: key.rollingPeriod), \
                    \(bind: key.transmissionRiskLevel), \(bind: key.daysSinceOnsetOfSymptoms), \(bind: key.reportType), \
                    \(bind: key.originCountry), \(bind: key.visitedCountries.joined(separator: ",")), \
                    \(bind: key.consentToFederation), \(bind: key.submissionType), \(bind: pending.hour), \
                    \(bind: pending.reservation), \(bind: pending.since))
                    """ as SQLQueryString)
            }
            // RETURNING lists only the rows written, so skipped duplicates are not counted.
            query.appendLiteral(" " + takeOver)
            inserted += try await connection.raw(query).all().count
        }
        return inserted
    }

    public static func decode(_ row: any SQLRow) throws -> StoredDiagnosisKey {
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
