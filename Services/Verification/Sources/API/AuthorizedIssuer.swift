import VerificationDomain

/// An issuer key that may issue now, with its health authority as read when its token was checked: the authority's
/// limits on each key (`Authority.issuerLimit(within:)`) apply to the call without reading it a second time.
struct AuthorizedIssuer: Sendable {
    let key: CodeIssuer
    let authority: Authority
}
