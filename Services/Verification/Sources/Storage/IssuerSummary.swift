import VerificationDomain

/// An issuer as `issuers list` and the portal's issuer keys page show it.
public struct IssuerSummary: Sendable, Equatable {
    public let issuer: CodeIssuer
    public let createdAt: Int64
    /// The first characters of the token's hash, to tell tokens apart without revealing anything.
    public let fingerprint: String
    /// When its token stops working (epoch seconds); nil: until it is removed.
    public let expiresAt: Int64?
    /// The last day (days since 1970-01-01, UTC) its token was used; nil: never. A day, not a time: enough to tell a
    /// key in use from a forgotten one, and no record of when a health authority's system calls.
    public let lastUsedDay: Int64?
    /// The officer who created it in the portal; nil for one added on the command line.
    public let createdBy: String?

    /// How many characters of the token's hash the fingerprint keeps: enough to tell an authority's keys apart, far
    /// too few to test a guessed token against.
    static let fingerprintLength = 12

    init(issuer: CodeIssuer, createdAt: Int64, tokenHash: String, expiresAt: Int64?, lastUsedDay: Int64?, createdBy: String?) {
        self.issuer = issuer
        self.createdAt = createdAt
        self.fingerprint = String(tokenHash.prefix(Self.fingerprintLength))
        self.expiresAt = expiresAt
        self.lastUsedDay = lastUsedDay
        self.createdBy = createdBy
    }
}
