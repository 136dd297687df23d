/// An officer's token that does not verify. One error for every reason (signature, expiry, issuer, audience, subject),
/// so that the caller learns nothing about which check failed; the API answers it 401.
public struct OfficerTokenRejected: Error, Sendable, Equatable {
    public init() {}
}
