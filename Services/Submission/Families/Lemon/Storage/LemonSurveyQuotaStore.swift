import ExposureCore
import SQLKit
import SubmissionDomain

/// `lemon_survey_quota`: how many surveys each device sent today, under a keyed hash of device and day
/// (`LemonSurveyQuota`), in a table of its own: no device id, no survey id. In the database rather than in memory, so
/// that N replicas together still allow a device its limit, not N times it.
struct LemonSurveyQuotaStore: Sendable {
    let database: Database
    let quota: LemonSurveyQuota

    /// Counts one survey of `deviceID` on `day` (`YYYY-MM-DD`) if the device has not reached the limit; false when it
    /// has. One statement decides, so concurrent surveys of one device cannot together pass the limit. Rows of days
    /// before `day` are deleted on the way.
    func take(deviceID: String, day: String) async throws -> Bool {
        let counter = quota.counter(deviceID: deviceID, day: day)
        return try await database.withConnection { connection in
            try await connection.raw("DELETE FROM lemon_survey_quota WHERE day < \(bind: day)").run()
            return try await connection.raw("""
                INSERT INTO lemon_survey_quota (counter, day, surveys) VALUES (\(bind: counter), \(bind: day), 1)
                ON CONFLICT (counter) DO UPDATE SET surveys = lemon_survey_quota.surveys + 1
                WHERE lemon_survey_quota.surveys < \(bind: quota.limit)
                RETURNING surveys
                """).first() != nil
        }
    }
}
