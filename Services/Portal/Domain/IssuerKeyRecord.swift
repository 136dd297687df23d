/// An issuer key of a health authority, as verification lists it (`/version/v1/issuers`): never its token.
public struct IssuerKeyRecord: Sendable, Equatable {
    public let name: String
    /// `COVIDSHIELD` or `PROTEGO`.
    public let kind: String
    public let region: String
    public let authority: String
    /// The first characters of the token's SHA-256.
    public let fingerprint: String
    /// Unix seconds.
    public let createdAt: Int64
    /// The officer who created it in the portal; nil for one added on the command line.
    public let createdBy: String?
    /// Unix seconds when its token stops working; nil for never.
    public let expiresAt: Int64?
    /// The last day its token was used (`YYYY-MM-DD`, UTC); nil for never.
    public let lastUsedDay: String?

    public init(
        name: String, kind: String, region: String, authority: String, fingerprint: String, createdAt: Int64, createdBy: String?,
        expiresAt: Int64?, lastUsedDay: String?
    ) {
        self.name = name
        self.kind = kind
        self.region = region
        self.authority = authority
        self.fingerprint = fingerprint
        self.createdAt = createdAt
        self.createdBy = createdBy
        self.expiresAt = expiresAt
        self.lastUsedDay = lastUsedDay
    }
}
