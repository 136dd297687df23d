import ExposureCore
import Foundation
import SQLKit
import SubmissionDomain

/// What the ProteGO download output reads and records (schema version 7): the region's keys no file holds yet, the
/// files published so far, and which keys each holds.
public struct ProteGOExportStore: Sendable {
    /// One run's files: `<publishedAt>-00001.zip` … `-<files>.zip`.
    struct Export: Sendable, Equatable {
        var publishedAt: Int64
        var files: Int
    }

    let database: Database
    let region: String

    public init(database: Database, region: String) {
        self.database = database
        self.region = region
    }

    /// Publishable keys of the region that no ProteGO file holds, submitted since `firstHour` (hours since the epoch).
    func unpublishedKeys(firstHour: Int64) async throws -> [ExportableKey] {
        try await database.withConnection { connection in
            try await connection.raw("""
                SELECT key_data, rolling_start_interval_number, rolling_period, transmission_risk_level, submission_type, \
                submission_timestamp FROM diagnosis_keys \
                WHERE origin_country = \(bind: region) AND protego_published_at IS NULL AND pending_reservation IS NULL \
                AND submission_timestamp >= \(bind: firstHour)
                """).all().compactMap(Self.key)
        }
    }

    /// The keys a run put into its files.
    func keys(publishedAt: Int64) async throws -> [ExportableKey] {
        try await database.withConnection { connection in
            try await connection.raw("""
                SELECT key_data, rolling_start_interval_number, rolling_period, transmission_risk_level, submission_type, \
                submission_timestamp FROM diagnosis_keys \
                WHERE origin_country = \(bind: region) AND protego_published_at = \(bind: publishedAt)
                """).all().compactMap(Self.key)
        }
    }

    /// A stored row as distribution holds keys; nil for a row no submission stores (see `ExportableKey.fits`).
    private static func key(_ row: any SQLRow) throws -> ExportableKey? {
        let keyData = try row.decode(column: "key_data", as: Data.self)
        let start = try row.decode(column: "rolling_start_interval_number", as: Int32.self)
        let period = try row.decode(column: "rolling_period", as: Int32.self)
        let level = try row.decode(column: "transmission_risk_level", as: Int32.self)
        let type = try row.decode(column: "submission_type", as: Int32.self)
        guard keyData.count == 16, ExportableKey.fits(rollingPeriod: period, transmissionRiskLevel: level, submissionType: type) else {
            return nil
        }
        return ExportableKey(
            keyData: Array(keyData), rollingStartIntervalNumber: start, rollingPeriod: period, transmissionRiskLevel: level,
            submissionType: type, submissionHour: try row.decode(column: "submission_timestamp", as: Int64.self)
        )
    }

    /// The runs that published files, oldest first.
    func exports() async throws -> [Export] {
        try await database.withConnection { connection in
            try await connection.raw("""
                SELECT published_at, files FROM protego_exports WHERE region = \(bind: region) ORDER BY published_at
                """).all().map {
                Export(publishedAt: try $0.decode(column: "published_at", as: Int64.self), files: try $0.decode(column: "files", as: Int.self))
            }
        }
    }

    /// Records, in one transaction, that `keys` go into the files published at `publishedAt`, before any is written:
    /// a run stopped midway leaves the record, from which the next run writes the same files.
    func record(_ keys: [ExportableKey], export: Export) async throws {
        try await database.transaction { connection in
            for key in keys {
                try await connection.raw("""
                    UPDATE diagnosis_keys SET protego_published_at = \(bind: export.publishedAt) \
                    WHERE key_data = \(bind: Data(key.keyData)) AND submission_type = \(bind: key.submissionType)
                    """).run()
            }
            try await connection.raw("""
                INSERT INTO protego_exports (region, published_at, files, key_count) \
                VALUES (\(bind: region), \(bind: export.publishedAt), \(bind: export.files), \(bind: keys.count))
                """).run()
        }
    }

    /// Forgets runs published before `cutoff` (their keys are gone by then, or soon: retention deletes keys older
    /// than 14 days).
    func forget(before cutoff: Int64) async throws {
        try await database.withConnection { connection in
            try await connection.raw("DELETE FROM protego_exports WHERE region = \(bind: region) AND published_at < \(bind: cutoff)").run()
        }
    }
}
