import Foundation
import JWTKit
import PortalDomain

/// The provider's discovery document (`/.well-known/openid-configuration`), the fields the portal uses.
struct OIDCDiscovery: Decodable, Sendable {
    let issuer: String
    let authorization_endpoint: URL
    let token_endpoint: URL
    let jwks_uri: URL
}

/// The token endpoint's answer to an authorization-code or refresh-token grant.
public struct OIDCTokenResponse: Decodable, Sendable {
    public let access_token: String
    public let id_token: String?
    public let refresh_token: String?
    public let expires_in: Int?

    /// When the access token expires, `expires_in` seconds after `now`, read as 0 to 1 day: a provider's absurd
    /// value can neither overflow the sum nor keep a token in use for longer than an officer's session lasts.
    public func accessTokenExpiry(after now: Int64) -> Int64? {
        expires_in.map { now + Int64(min(max($0, 0), 86_400)) }
    }
}

/// Keycloak's layout of realm roles, in ID and access tokens.
struct RealmAccess: Codable, Sendable {
    var roles: [String]
}

/// The ID token claims the portal checks. Time, issuer, audience and nonce are checked by `OIDCProvider`
/// against the injected clock and the login in progress, not here.
struct OIDCIDTokenClaims: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var nonce: String?
    var preferred_username: String?
    var realm_access: RealmAccess?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// The part of a JWT access token that carries roles (when the ID token has none, as Keycloak does unless
/// a mapper adds them).
struct OIDCAccessTokenClaims: JWTPayload {
    var exp: ExpirationClaim
    var realm_access: RealmAccess?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// A token's claims of text, by name: a string claim as one value, a list of strings as its strings. It lets the
/// portal read the claim an operator names (`OIDC_AUTHORITY_CLAIM`), which no fixed type can know; other claims
/// (numbers, objects) are left out.
struct OIDCTextClaims: JWTPayload {
    var values: [String: [String]]

    private struct Name: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Name.self)
        var values: [String: [String]] = [:]
        for key in container.allKeys {
            if let text = try? container.decode(String.self, forKey: key) {
                values[key.stringValue] = [text]
            } else if let texts = try? container.decode([String].self, forKey: key) {
                values[key.stringValue] = texts
            }
        }
        self.values = values
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Name.self)
        for (name, texts) in values { try container.encode(texts, forKey: Name(stringValue: name)) }
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
