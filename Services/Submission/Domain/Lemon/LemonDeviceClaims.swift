import JWTKit

/// The claims of a LEMON access token: the device (`sub`), when it was issued and until when it is good, and a random
/// id. Time is checked against the injected clock by `LemonAccessTokens`, not here.
public struct LemonDeviceClaims: JWTPayload {
    public var sub: SubjectClaim
    public var iat: IssuedAtClaim
    public var exp: ExpirationClaim
    public var jti: IDClaim

    public init(sub: SubjectClaim, iat: IssuedAtClaim, exp: ExpirationClaim, jti: IDClaim) {
        self.sub = sub
        self.iat = iat
        self.exp = exp
        self.jti = jti
    }

    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}
