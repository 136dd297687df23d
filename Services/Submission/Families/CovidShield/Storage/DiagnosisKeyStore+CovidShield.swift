import ExposureCore
import SQLKit
import SubmissionCore
import SubmissionDomain

extension DiagnosisKeyStore {
    /// The publishable keys submitted in the window's hours whose origin is one of `origins` and whose rolling start
    /// is recent enough, ordered by key data: what a CovidShield retrieval serves (`CovidShieldFileStream`).
    func keys(submittedIn window: CovidShieldRetrievalWindow, origins: [String]) async throws -> [DiagnosisKey] {
        guard !origins.isEmpty else { return [] }
        return try await database.withConnection { connection in
            try await connection.raw("""
                SELECT \(unsafeRaw: Self.columns) FROM diagnosis_keys WHERE pending_reservation IS NULL \
                AND submission_timestamp >= \(bind: window.firstHour) AND submission_timestamp < \(bind: window.endHour) \
                AND rolling_start_interval_number > \(bind: window.minimumRollingStart) \
                AND origin_country IN (\(binds: origins)) ORDER BY key_data
                """).all().map { try Self.decode($0).key }
        }
    }
}
