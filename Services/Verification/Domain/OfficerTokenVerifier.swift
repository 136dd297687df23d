import ExposureRules
import Foundation
import JWTKit

/// The claims verification reads from an officer's token (Keycloak's layout: roles in `realm_access.roles`).
public struct OfficerClaims: JWTPayload {
    public struct RealmAccess: Codable, Sendable {
        public var roles: [String]
    }

    public var exp: ExpirationClaim
    public var nbf: NotBeforeClaim?
    public var iss: IssuerClaim?
    public var aud: AudienceClaim?
    public var sub: SubjectClaim?
    public var realm_access: RealmAccess?
    /// The health authority the officer belongs to (`Authority.id`), as the portal's tokens name it.
    public var authority: String? = nil

    /// Time is checked by `OfficerTokenVerifier` against the injected clock, not here.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// An officer as a verified token names them: the subject of an issuer, their roles, and what names their health
/// authority (`OfficerAuthorityPolicy`), which the API then looks up.
public struct VerifiedOfficer: Sendable, Equatable {
    public let issuer: String
    public let subject: String
    public let roles: Set<String>
    public let authority: AuthorityNaming
}

/// Verifies bearer JWTs against the configured key sources (a JWKS of an OIDC provider, static public keys), each
/// with the issuer and audience its tokens must carry, and returns the officer they name. Every failure is the same
/// 401, so a caller learns nothing about which check failed.
public struct OfficerTokenVerifier: Sendable {
    public let keys: OfficerSigningKeys
    public let clock: any WallClock
    public let authorities: OfficerAuthorityPolicy
    /// Allowed clock difference between the token's issuer and this service.
    public let leeway: TimeInterval = 30

    public init(keys: OfficerSigningKeys, clock: any WallClock, authorities: OfficerAuthorityPolicy = OfficerAuthorityPolicy()) {
        self.keys = keys
        self.clock = clock
        self.authorities = authorities
    }

    public func officer(of token: String?) async throws(OfficerTokenRejected) -> VerifiedOfficer {
        let unauthorized = OfficerTokenRejected()
        guard let token, !token.isEmpty else { throw unauthorized }
        let claims: OfficerClaims
        do {
            claims = try await keys.verify(token)
        } catch {
            throw unauthorized
        }
        let now = clock.now()
        guard claims.exp.value.addingTimeInterval(leeway) > now else { throw unauthorized }
        if let nbf = claims.nbf, nbf.value.addingTimeInterval(-leeway) > now { throw unauthorized }
        // The per-officer limit counts by subject: a token that names nobody cannot be counted.
        guard let issuer = claims.iss?.value, let subject = claims.sub?.value, !subject.isEmpty else { throw unauthorized }
        // The configured claim is read from the verified payload as it is (a string or a list), not as a typed claim.
        let configured = authorities.claim.flatMap { JWTPayloadClaim.strings(named: $0, in: token) }
        return VerifiedOfficer(
            issuer: issuer, subject: subject, roles: Set(claims.realm_access?.roles ?? []),
            authority: authorities.naming(authorityClaim: claims.authority, configuredClaim: configured)
        )
    }
}
