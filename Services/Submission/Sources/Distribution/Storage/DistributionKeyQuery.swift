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
        return try await database.withConnection { connection in
            let rows = try await connection.raw("""
                SELECT key_data, rolling_start_interval_number, rolling_period, transmission_risk_level, submission_timestamp
                FROM diagnosis_keys
                WHERE transmission_risk_level >= \(bind: minimumRiskLevel) AND submission_timestamp >= \(bind: firstHour)
                """).all()
            var keys: [ExportableKey] = []
            keys.reserveCapacity(rows.count)
            for row in rows {
                let keyData = try row.decode(column: "key_data", as: Data.self)
                guard keyData.count == 16 else { continue }
                keys.append(ExportableKey(
                    keyData: Array(keyData),
                    rollingStartIntervalNumber: Int32(try row.decode(column: "rolling_start_interval_number", as: Int.self)),
                    rollingPeriod: Int32(try row.decode(column: "rolling_period", as: Int.self)),
                    transmissionRiskLevel: Int32(try row.decode(column: "transmission_risk_level", as: Int.self)),
                    submissionHour: try row.decode(column: "submission_timestamp", as: Int64.self)
                ))
            }
            return keys
        }
    }
}
