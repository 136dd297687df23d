/// A version of a health authority's signing key, as verification lists it (`/version/v1/signing-keys`): never its
/// private half.
public struct SigningKeyRecord: Sendable, Equatable {
    /// What a version does now.
    public enum State: String, Sendable, Equatable {
        /// Signs from now on (one per authority).
        case active
        /// Signs nothing new; what it signed still verifies.
        case published
        /// Neither published nor kept.
        case retired
    }

    /// The JWS `kid`: the authority's id, `-v` and the version (`default-v2`).
    public let keyID: String
    public let authority: String
    public let version: Int
    public let state: State
    /// Unix seconds.
    public let createdAt: Int64
    /// The officer who made it; nil for one the system made.
    public let createdBy: String?
    /// Unix seconds; nil while it is live.
    public let retiredAt: Int64?

    public init(keyID: String, authority: String, version: Int, state: State, createdAt: Int64, createdBy: String?, retiredAt: Int64?) {
        self.keyID = keyID
        self.authority = authority
        self.version = version
        self.state = state
        self.createdAt = createdAt
        self.createdBy = createdBy
        self.retiredAt = retiredAt
    }
}
