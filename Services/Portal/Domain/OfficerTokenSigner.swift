import ExposureRules
import Foundation
import JWTKit

/// The claims of the portal's own officer tokens: the Keycloak layout verification reads
/// (`realm_access.roles`), valid for one call.
public struct PortalOfficerClaims: JWTPayload {
    public struct RealmAccess: Codable, Sendable {
        public var roles: [String]
    }

    public var iss: IssuerClaim
    public var aud: AudienceClaim
    public var sub: SubjectClaim
    public var iat: IssuedAtClaim
    public var exp: ExpirationClaim
    public var jti: IDClaim
    public var realm_access: RealmAccess
    /// The officer's health authority (`AuthorityID`), whose families, regions and limits verification applies;
    /// absent for a system administrator.
    public var authority: String?

    public func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}

/// Signs short-lived ES256 tokens for local accounts, so that verification sees the same kind of credential
/// as from an OIDC provider and checks the roles itself. Each names the portal as issuer and verification as audience,
/// which verification requires of the portal's key (`JWT_PUBLIC_KEY_FILES` entry `path|issuer|audience`).
public struct OfficerTokenSigner: Sendable {
    private let keys: JWTKeyCollection
    private let issuer: String
    private let audience: String
    private let lifetime: Duration
    private let clock: any WallClock
    private let random: any RandomSource

    public init(key: ES256PrivateKey, issuer: String, audience: String, lifetime: Duration, clock: any WallClock, random: any RandomSource) async {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key)
        self.keys = keys
        self.issuer = issuer
        self.audience = audience
        self.lifetime = lifetime
        self.clock = clock
        self.random = random
    }

    public func token(for officer: Officer) async throws -> String {
        let now = clock.now()
        let claims = PortalOfficerClaims(
            iss: IssuerClaim(value: issuer),
            aud: AudienceClaim(value: audience),
            sub: SubjectClaim(value: officer.name),
            iat: IssuedAtClaim(value: now),
            exp: ExpirationClaim(value: now.addingTimeInterval(lifetime.seconds)),
            jti: IDClaim(value: random.bytes(count: 16).hexString),
            realm_access: .init(roles: officer.roles.sorted()),
            authority: officer.authority
        )
        return try await keys.sign(claims)
    }
}
