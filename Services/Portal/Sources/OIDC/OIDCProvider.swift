import AsyncHTTPClient
import ExposureCore
import Foundation
import JWTKit
import Logging
import NIOCore
import PortalDomain

/// The OpenID Connect provider, seen from the portal: discovery, the authorization URL, the code and
/// refresh grants, and ID token verification against the provider's JWKS.
///
/// Discovery and keys are fetched on first use (the provider may start after the portal). The keys are fetched
/// again when they are older than five minutes, and when a token is signed with a key not yet known (rotation), at
/// most once a minute. Each fetch replaces the keys as a whole, so a key the provider withdrew (rotated out, or
/// revoked after a leak) is no longer trusted five minutes later.
public actor OIDCProvider {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The token endpoint refused the grant (400 or 401: an expired or revoked refresh token, a changed client
    /// secret), as opposed to failing to answer.
    struct GrantRefused: Error, CustomStringConvertible {
        let status: Int
        var description: String { "the token endpoint refused the grant (\(status))" }
    }

    private let settings: OIDCSettings
    private let http: HTTPClient
    private let clock: any WallClock
    private let logger: Logger
    private var keys = JWTKeyCollection()
    /// How long fetched keys are trusted before they are fetched again.
    private let keysMaxAge: TimeInterval = 300
    private var discovery: OIDCDiscovery?
    private var keysFetchedAt: Date?
    /// Allowed clock difference between the provider and the portal.
    private let leeway: TimeInterval = 60

    /// `http`: a client that reports a provider it cannot reach at once, so that the officer gets a try-again page
    /// in a moment rather than after the request's timeout.
    public init(settings: OIDCSettings, http: HTTPClient, clock: any WallClock, logger: Logger) {
        self.settings = settings
        self.http = http
        self.clock = clock
        self.logger = logger
    }

    public nonisolated var providerName: String { settings.providerName }

    /// Where to send the browser to sign in.
    func authorizationURL(state: String, nonce: String, codeChallenge: String) async throws -> URL {
        let document = try await discoveryDocument()
        guard var components = URLComponents(url: document.authorization_endpoint, resolvingAgainstBaseURL: false) else {
            throw Failure(description: "invalid authorization_endpoint")
        }
        components.queryItems = (components.queryItems ?? []) + [
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "client_id", value: settings.clientID),
            URLQueryItem(name: "redirect_uri", value: settings.redirectURL.absoluteString),
            URLQueryItem(name: "scope", value: settings.scopes.joined(separator: " ")),
            URLQueryItem(name: "state", value: state),
            URLQueryItem(name: "nonce", value: nonce),
            URLQueryItem(name: "code_challenge", value: codeChallenge),
            URLQueryItem(name: "code_challenge_method", value: "S256"),
        ]
        guard let url = components.url else { throw Failure(description: "cannot build the authorization URL") }
        return url
    }

    /// Exchanges an authorization code for tokens.
    func exchange(code: String, codeVerifier: String) async throws -> OIDCTokenResponse {
        try await tokenRequest([
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", settings.redirectURL.absoluteString),
            ("code_verifier", codeVerifier),
        ])
    }

    /// Gets a fresh access token with the refresh token.
    func refresh(refreshToken: String) async throws -> OIDCTokenResponse {
        try await tokenRequest([("grant_type", "refresh_token"), ("refresh_token", refreshToken)])
    }

    /// Verifies the ID token of a fresh login and returns the officer it names, with roles from the ID token
    /// or else from the (JWT) access token.
    func officer(from tokens: OIDCTokenResponse, nonce: String) async throws -> Officer {
        guard let idToken = tokens.id_token else { throw Failure(description: "the token response has no id_token") }
        let claims = try await verified(idToken, as: OIDCIDTokenClaims.self)
        let now = clock.now()
        guard normalized(claims.iss.value) == normalized(settings.issuer.absoluteString) else { throw Failure(description: "wrong issuer") }
        guard claims.aud.value.contains(settings.clientID) else { throw Failure(description: "wrong audience") }
        guard claims.exp.value.addingTimeInterval(leeway) > now else { throw Failure(description: "expired ID token") }
        guard let tokenNonce = claims.nonce, SecretHash.constantTimeEquals(tokenNonce, nonce) else { throw Failure(description: "wrong nonce") }
        var roles = claims.realm_access?.roles
        if roles == nil, let access = try? await verified(tokens.access_token, as: OIDCAccessTokenClaims.self) {
            roles = access.realm_access?.roles
        }
        let name = claims.preferred_username.flatMap { $0.isEmpty ? nil : $0 } ?? claims.sub.value
        let granted = Set(roles ?? [])
        // A system administrator belongs to no authority; everyone else to the one their token names.
        let authority = granted.contains(OfficerRoles.systemAdministrator) ? nil : try await authority(idToken: idToken, accessToken: tokens.access_token)
        return Officer(name: name, roles: granted, source: .oidc, authority: authority)
    }

    /// The health authority the tokens name (the ID token's claim, else the access token's), or `default` when no
    /// claim is configured; a token that names none, or several, is refused.
    private func authority(idToken: String, accessToken: String) async throws -> String {
        guard let claim = settings.authorityClaim else { return AuthorityID.default }
        var values = try await verified(idToken, as: OIDCTextClaims.self).values[claim.name]
        if values == nil, let access = try? await verified(accessToken, as: OIDCTextClaims.self) { values = access.values[claim.name] }
        guard let authority = claim.authority(in: values ?? []) else {
            throw Failure(description: "the token names no health authority in its claim \(claim.name), or more than one")
        }
        return authority
    }

    // MARK: Plumbing

    private func discoveryDocument() async throws -> OIDCDiscovery {
        if let discovery { return discovery }
        let url = settings.issuer.appendingPathComponent(".well-known/openid-configuration")
        let document = try JSONDecoder().decode(OIDCDiscovery.self, from: try await get(url))
        guard normalized(document.issuer) == normalized(settings.issuer.absoluteString) else {
            throw Failure(description: "the discovery document names another issuer")
        }
        discovery = document
        return document
    }

    private func verified<Payload: JWTPayload>(_ token: String, as type: Payload.Type) async throws -> Payload {
        if keysFetchedAt.map({ clock.now().timeIntervalSince($0) > keysMaxAge }) ?? true { try await fetchKeys() }
        do {
            return try await keys.verify(token, as: type)
        } catch {
            // A new key (rotation): fetch once more, but do not let bad tokens hammer the provider.
            guard let fetched = keysFetchedAt, clock.now().timeIntervalSince(fetched) > 60 else { throw error }
            try await fetchKeys()
            return try await keys.verify(token, as: type)
        }
    }

    private func fetchKeys() async throws {
        let document = try await discoveryDocument()
        let json = String(decoding: try await get(document.jwks_uri), as: UTF8.self)
        let fresh = JWTKeyCollection()
        try await fresh.add(jwksJSON: json)
        keys = fresh
        keysFetchedAt = clock.now()
        logger.debug("OIDC signing keys fetched")
    }

    private func tokenRequest(_ fields: [(String, String)]) async throws -> OIDCTokenResponse {
        let document = try await discoveryDocument()
        var request = HTTPClientRequest(url: document.token_endpoint.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        // client_secret_basic (RFC 6749 §2.3.1): id and secret are form-encoded before base64.
        let credentials = "\(FormEncoding.encode(settings.clientID)):\(FormEncoding.encode(settings.clientSecret))"
        request.headers.add(name: "Authorization", value: "Basic \(Data(credentials.utf8).base64EncodedString())")
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(fields)))
        let response = try await http.execute(request, timeout: TimeAmount(settings.timeout))
        let body = try await response.body.collect(upTo: 1024 * 1024)
        guard response.status == .ok else {
            if response.status == .badRequest || response.status == .unauthorized { throw GrantRefused(status: Int(response.status.code)) }
            throw Failure(description: "the token endpoint answered \(response.status.code)")
        }
        return try JSONDecoder().decode(OIDCTokenResponse.self, from: Data(buffer: body))
    }

    private func get(_ url: URL) async throws -> Data {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept", value: "application/json")
        let response = try await http.execute(request, timeout: TimeAmount(settings.timeout))
        let body = try await response.body.collect(upTo: 1024 * 1024)
        guard response.status == .ok else { throw Failure(description: "\(url.path) answered \(response.status.code)") }
        return Data(buffer: body)
    }

    private func normalized(_ issuer: String) -> String {
        issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
    }
}
