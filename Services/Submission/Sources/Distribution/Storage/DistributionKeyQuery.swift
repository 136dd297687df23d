import ExposureCore
import Foundation
import SQLKit

/// The keys a distribution run may publish: transmission risk level at least `minimumRiskLevel`, submitted in
/// the last `lookbackDays` days.
public struct DistributionKeyQuery: Sendable {
    let database: Database
    public var minimumRiskLevel: Int
    public var lookbackDays: Int

    public init(database: Database, minimumRiskLevel: Int = 3, lookbackDays: Int = 10) {
        self.database = database
        self.minimumRiskLevel = minimumRiskLevel
        self.lookbackDays = lookbackDays
    }

    public func keys(now: Date) async throws -> [ExportableKey] {
        let firstHour = Int64(now.timeIntervalSince1970) / 3600 - Int64(lookbackDays) * 24
        // Rows are decoded as they arrive instead of being collected first: a million rows of a database driver
        // weigh several times the compact keys.
        let collector = KeyCollector()
        try await database.withConnection { connection in
            try await connection.raw("""
                SELECT key_data, rolling_start_interval_number, rolling_period, transmission_risk_level, submission_timestamp
                FROM diagnosis_keys
                WHERE transmission_risk_level >= \(bind: minimumRiskLevel) AND submission_timestamp >= \(bind: firstHour)
                """).run { row in collector.add(row) }
        }
        return try collector.finish()
    }
}

/// Decodes rows into keys as the driver hands them over (from its event loop, hence the lock).
private final class KeyCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var keys: [ExportableKey] = []
    private var failure: (any Error)?

    func add(_ row: any SQLRow) {
        do {
            let keyData = try row.decode(column: "key_data", as: Data.self)
            guard keyData.count == 16 else { return }
            let key = ExportableKey(
                keyData: Array(keyData),
                rollingStartIntervalNumber: Int32(try row.decode(column: "rolling_start_interval_number", as: Int.self)),
                rollingPeriod: Int32(try row.decode(column: "rolling_period", as: Int.self)),
                transmissionRiskLevel: Int32(try row.decode(column: "transmission_risk_level", as: Int.self)),
                submissionHour: try row.decode(column: "submission_timestamp", as: Int64.self)
            )
            lock.withLock { keys.append(key) }
        } catch {
            lock.withLock { failure = failure ?? error }
        }
    }

    func finish() throws -> [ExportableKey] {
        try lock.withLock {
            if let failure { throw failure }
            return keys
        }
    }
}
