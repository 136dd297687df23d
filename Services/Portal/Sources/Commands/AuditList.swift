import ExposureCore
import Foundation

/// `audit --json`: `{"entries": [{"time", "source", "officer", "type", "healthAuthority", "outcome", "authority"}]}`, newest
/// first, the rows of the table (whose OFFICER column is `source:officer`).
struct AuditList: Encodable {
    struct Entry: Encodable {
        let time: String
        /// `local` or `oidc`.
        let source: String
        let officer: String
        /// `TEST` or `EVENT`.
        let type: String
        /// Null when the request named none (the table shows `-`).
        let healthAuthority: JSONNullable<String>
        /// `issued`, `officer_limited`, `global_limited`, `refused` or `failed`.
        let outcome: String
        /// The officer's health authority.
        let authority: JSONNullable<String>

        init(_ entry: AuditEntry) {
            time = Date.iso8601(entry.occurredAt)
            source = entry.source.rawValue
            officer = entry.officer
            type = entry.kind.rawValue
            healthAuthority = JSONNullable(entry.healthAuthority)
            outcome = entry.outcome.rawValue
            authority = JSONNullable(entry.authority)
        }
    }

    let entries: [Entry]
}
