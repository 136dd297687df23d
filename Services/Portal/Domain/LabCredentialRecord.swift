/// A lab's credential, as test-result lists it (`/version/v1/lab-credentials`): never its key.
public struct LabCredentialRecord: Sendable, Equatable {
    public let labID: String
    /// A TLS client certificate (registered on the command line) rather than an API key.
    public let isCertificate: Bool
    /// The first 12 hexadecimal characters of its SHA-256.
    public let fingerprint: String
    /// Unix seconds.
    public let createdAt: Int64
    /// Unix seconds; nil while it is active.
    public let revokedAt: Int64?
    /// The last day a lab posted with it (`YYYY-MM-DD`, UTC); nil for never.
    public let lastUsedDay: String?

    public init(labID: String, isCertificate: Bool, fingerprint: String, createdAt: Int64, revokedAt: Int64?, lastUsedDay: String?) {
        self.labID = labID
        self.isCertificate = isCertificate
        self.fingerprint = fingerprint
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.lastUsedDay = lastUsedDay
    }
}
