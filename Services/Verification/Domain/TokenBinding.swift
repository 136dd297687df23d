/// What every token of one key source must say about where it comes from and whom it is for: a key the portal signs
/// with, or an OIDC provider's, vouches only for tokens of its own issuer meant for verification. Without it, any token
/// of the provider's realm that carries an officer role (one issued to another application, say) would mint teleTANs.
public struct TokenBinding: Sendable, Equatable {
    public var issuer: String
    public var audience: String

    public init(issuer: String, audience: String) {
        self.issuer = issuer
        self.audience = audience
    }

    /// Whether a token's `iss` is this issuer and its `aud` names this audience.
    public func accepts(issuer claimed: String?, audiences: [String]?) -> Bool {
        claimed == issuer && (audiences ?? []).contains(audience)
    }
}
