/// `labs list --json`: `{"credentials": [{"labId", "kind", "fingerprint", "createdAt", "state", "revokedAt"}]}`, the
/// rows of the table.
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
        let revokedAt: String?

        init(_ summary: LabCredentialSummary) {
            labId = summary.labID
            kind = summary.kind == .apiKey ? "key" : "certificate"
            fingerprint = summary.fingerprint
            createdAt = TestResultAdmin.iso(summary.createdAt)
            state = summary.revokedAt == nil ? "active" : "revoked"
            revokedAt = summary.revokedAt.map(TestResultAdmin.iso)
        }

        // Written by hand so that `revokedAt` is null rather than left out: every row has every key.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(labId, forKey: .labId)
            try container.encode(kind, forKey: .kind)
            try container.encode(fingerprint, forKey: .fingerprint)
            try container.encode(createdAt, forKey: .createdAt)
            try container.encode(state, forKey: .state)
            try container.encode(revokedAt, forKey: .revokedAt)
        }

        enum CodingKeys: String, CodingKey { case labId, kind, fingerprint, createdAt, state, revokedAt }
    }

    let credentials: [Credential]
}
