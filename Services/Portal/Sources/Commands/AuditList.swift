/// `audit --json`: `{"entries": [{"time", "source", "officer", "type", "healthAuthority", "outcome"}]}`, newest
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
        let healthAuthority: String?
        /// `issued`, `officer_limited`, `global_limited`, `refused` or `failed`.
        let outcome: String

        init(_ entry: AuditEntry) {
            time = PortalAdmin.iso(entry.occurredAt)
            source = entry.source.rawValue
            officer = entry.officer
            type = entry.kind.rawValue
            healthAuthority = entry.healthAuthority
            outcome = entry.outcome.rawValue
        }

        // Written by hand so that `healthAuthority` is null rather than left out: every row has every key.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(time, forKey: .time)
            try container.encode(source, forKey: .source)
            try container.encode(officer, forKey: .officer)
            try container.encode(type, forKey: .type)
            try container.encode(healthAuthority, forKey: .healthAuthority)
            try container.encode(outcome, forKey: .outcome)
        }

        enum CodingKeys: String, CodingKey { case time, source, officer, type, healthAuthority, outcome }
    }

    let entries: [Entry]
}
