import ExposureCore
import Foundation
import JWTKit

/// The claims verification reads from an officer's token (Keycloak's layout: roles in `realm_access.roles`).
struct OfficerClaims: JWTPayload {
    struct RealmAccess: Codable, Sendable {
        var roles: [String]
    }

    var exp: ExpirationClaim
    var nbf: NotBeforeClaim?
    var iss: IssuerClaim?
    var aud: AudienceClaim?
    var realm_access: RealmAccess?

    /// Time is checked by `OfficerTokenVerifier` against the injected clock, not here.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Verifies bearer JWTs against the configured keys (a JWKS of an OIDC provider, or a static public key) and
/// returns the roles they carry. Every failure is the same 401, so a caller learns nothing about which check
/// failed.
public struct OfficerTokenVerifier: Sendable {
    let keys: OfficerSigningKeys
    let clock: any WallClock
    let issuer: String?
    let audience: String?
    /// Allowed clock difference between the token's issuer and this service.
    let leeway: TimeInterval = 30

    public init(keys: OfficerSigningKeys, clock: any WallClock, issuer: String?, audience: String?) {
        self.keys = keys
        self.clock = clock
        self.issuer = issuer
        self.audience = audience
    }

    public func roles(of token: String?) async throws(APIError) -> Set<String> {
        let unauthorized = APIError.unauthorized("A valid bearer token with the officer's roles is required.")
        guard let token, !token.isEmpty else { throw unauthorized }
        let claims: OfficerClaims
        do {
            claims = try await keys.verify(token, as: OfficerClaims.self)
        } catch {
            throw unauthorized
        }
        let now = clock.now()
        guard claims.exp.value.addingTimeInterval(leeway) > now else { throw unauthorized }
        if let nbf = claims.nbf, nbf.value.addingTimeInterval(-leeway) > now { throw unauthorized }
        if let issuer, claims.iss?.value != issuer { throw unauthorized }
        if let audience, !(claims.aud?.value.contains(audience) ?? false) { throw unauthorized }
        return Set(claims.realm_access?.roles ?? [])
    }
}
