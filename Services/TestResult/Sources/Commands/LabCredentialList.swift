import ExposureCore
import ExposureStatistics
import Foundation

/// `labs list --json`: `{"credentials": [{"labId", "kind", "fingerprint", "createdAt", "state", "revokedAt",
/// "lastUsed"}]}`, the rows of the table.
struct LabCredentialList: Encodable {
    struct Credential: Encodable {
        let labId: String
        /// `key` or `certificate`, as the table says.
        let kind: String
        /// The first characters of the stored hash (the table adds `…`).
        let fingerprint: String
        let createdAt: String
        /// `active` or `revoked`.
        let state: String
        /// When it was revoked, or null.
        let revokedAt: JSONNullable<String>
        /// The last day (UTC, `YYYY-MM-DD`) it was used, or null for never.
        let lastUsed: JSONNullable<String>

        init(_ summary: LabCredentialSummary) {
            labId = summary.labID
            kind = summary.kind == .apiKey ? "key" : "certificate"
            fingerprint = summary.fingerprint
            createdAt = Date.iso8601(summary.createdAt)
            state = summary.revokedAt == nil ? "active" : "revoked"
            revokedAt = JSONNullable(summary.revokedAt.map(Date.iso8601))
            lastUsed = JSONNullable(summary.lastUsedDay.map { StatisticsDay(number: $0).description })
        }
    }

    let credentials: [Credential]
}
