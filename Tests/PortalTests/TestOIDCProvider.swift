import Crypto
import ExposureCore
import ExposureTestSupport
import Foundation
import Hummingbird
import JWTKit
import NIOCore
@testable import PortalDomain
@testable import VerificationDomain

/// A small but real OpenID Connect provider for tests: discovery, JWKS, an authorization endpoint that signs
/// in a fixed user at once, and a token endpoint (authorization code with PKCE, refresh token). Tokens are
/// ES256, in Keycloak's layout (roles in the access token's `realm_access.roles`, not in the ID token).
final class TestOIDCProvider: @unchecked Sendable {
    struct Grant {
        let nonce: String
        let challenge: String
        let redirectURI: String
    }

    let clientID = "portal"
    let clientSecret = "s3cret:with/odd+chars"
    let userName: String
    let roles: [String]
    let groups: [String]?
    let accessTokenLifetime: Int
    let clock: ManualClock
    /// The key published and signed with at first, under the key id `test-key`.
    let key = ES256PrivateKey()
    private let lock = NSLock()
    private lazy var published: [(kid: String, key: ES256PrivateKey)] = [("test-key", key)]
    private lazy var signing: (kid: String, key: ES256PrivateKey) = ("test-key", key)
    private var grants: [String: Grant] = [:]
    private var port = 0
    private(set) var refreshCount = 0
    /// While set, the token endpoint answers 503, as a provider that is down behind its proxy.
    private var tokenEndpointDown = false

    func setTokenEndpointDown(_ down: Bool) { lock.withLock { tokenEndpointDown = down } }

    /// From now on, the JWKS lists `published` and tokens are signed with `signing` (which need not be published:
    /// a withdrawn key in an attacker's hands).
    func setKeys(published: [(kid: String, key: ES256PrivateKey)], signing: (kid: String, key: ES256PrivateKey)) {
        lock.withLock {
            self.published = published
            self.signing = signing
        }
    }

    /// `groups`: the ID token's claim `groups`, when given.
    init(userName: String = "dr.oidc", roles: [String] = ["c19hotline"], groups: [String]? = nil, accessTokenLifetime: Int = 300, clock: ManualClock) {
        self.userName = userName
        self.roles = roles
        self.groups = groups
        self.accessTokenLifetime = accessTokenLifetime
        self.clock = clock
    }

    var issuer: String { "http://127.0.0.1:\(lock.withLock { port })/realms/test" }

    /// Runs the provider for the length of `body`.
    func run(_ body: () async throws -> Void) async throws {
        let router = Router(context: BasicRequestContext.self)
        router.get("/realms/test/.well-known/openid-configuration") { _, _ in self.json([
            "issuer": self.issuer,
            "authorization_endpoint": self.issuer + "/auth",
            "token_endpoint": self.issuer + "/token",
            "jwks_uri": self.issuer + "/certs",
        ]) }
        router.get("/realms/test/certs") { _, _ in
            let keys = self.lock.withLock { self.published }.map { published in
                let (x, y) = published.key.publicKey.parameters!
                return ["kty": "EC", "crv": "P-256", "x": x, "y": y, "kid": published.kid, "alg": "ES256", "use": "sig"]
            }
            return self.json(["keys": keys])
        }
        router.get("/realms/test/auth") { request, _ in try self.authorize(request) }
        router.post("/realms/test/token") { request, _ in try await self.token(request) }
        let bundle = TestServices.standIn("oidc", listener: "web", router: router)
        try await TestServices.withRunning([bundle]) { running in
            let bound = await running.bundle("oidc").port("web")
            lock.withLock { port = bound }
            try await body()
        }
    }

    func writePublicKey(to directory: URL) throws -> String {
        let path = directory.appendingPathComponent("oidc-provider.pub.pem").path
        try key.publicKey.pemRepresentation.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    // MARK: Endpoints

    /// Signs the fixed user in at once and sends the browser back with a code.
    private func authorize(_ request: Request) throws -> Response {
        let query = request.uri.queryParameters
        guard query["client_id"].map(String.init) == clientID, query["response_type"] == "code",
              query["code_challenge_method"] == "S256", let challenge = query["code_challenge"],
              let redirect = query["redirect_uri"], let state = query["state"], let nonce = query["nonce"],
              query["scope"]?.split(separator: " ").contains("openid") == true
        else { throw HTTPError(.badRequest) }
        let code = UUID().uuidString
        lock.withLock { grants[code] = Grant(nonce: String(nonce), challenge: String(challenge), redirectURI: String(redirect)) }
        var components = URLComponents(string: String(redirect))!
        components.queryItems = [URLQueryItem(name: "code", value: code), URLQueryItem(name: "state", value: String(state))]
        return Response(status: .found, headers: [.location: components.string!])
    }

    private func token(_ request: Request) async throws -> Response {
        let expected = "Basic " + Data("\(FormText.escape(clientID)):\(FormText.escape(clientSecret))".utf8).base64EncodedString()
        guard request.headers[.authorization] == expected else { throw HTTPError(.unauthorized) }
        guard !lock.withLock({ tokenEndpointDown }) else { throw HTTPError(.serviceUnavailable) }
        let fields = FormText.decode(String(buffer: try await request.body.collect(upTo: 65536)))
        switch fields["grant_type"] {
        case "authorization_code":
            let grant = lock.withLock { grants.removeValue(forKey: fields["code"] ?? "") }
            guard let grant, fields["redirect_uri"] == grant.redirectURI, let verifier = fields["code_verifier"],
                  Self.base64URL(Array(SHA256.hash(data: Array(verifier.utf8)))) == grant.challenge
            else { throw HTTPError(.badRequest) }
            return try await tokens(nonce: grant.nonce)
        case "refresh_token":
            guard fields["refresh_token"] == "refresh-\(userName)" else { throw HTTPError(.badRequest) }
            lock.withLock { refreshCount += 1 }
            return try await tokens(nonce: nil)
        default:
            throw HTTPError(.badRequest)
        }
    }

    private func tokens(nonce: String?) async throws -> Response {
        let signing = lock.withLock { self.signing }
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: signing.key, kid: JWKIdentifier(string: signing.kid))
        let now = clock.now()
        let access = AccessClaims(
            iss: IssuerClaim(value: issuer), sub: SubjectClaim(value: "id-\(userName)"), aud: AudienceClaim(value: Self.verificationAudience),
            exp: ExpirationClaim(value: now.addingTimeInterval(TimeInterval(accessTokenLifetime))),
            azp: clientID, realm_access: .init(roles: roles)
        )
        var body: [String: Any] = [
            "access_token": try await keys.sign(access, kid: JWKIdentifier(string: signing.kid)),
            "token_type": "Bearer",
            "expires_in": accessTokenLifetime,
            "refresh_token": "refresh-\(userName)",
        ]
        if let nonce {
            let id = IDClaims(
                iss: IssuerClaim(value: issuer), sub: SubjectClaim(value: "id-\(userName)"), aud: AudienceClaim(value: clientID),
                exp: ExpirationClaim(value: now.addingTimeInterval(300)), iat: IssuedAtClaim(value: now),
                nonce: nonce, preferred_username: userName, groups: groups
            )
            body["id_token"] = try await keys.sign(id, kid: JWKIdentifier(string: signing.kid))
        }
        return json(body)
    }

    private func json(_ object: [String: Any]) -> Response {
        let data = try! JSONSerialization.data(withJSONObject: object)
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The audience of the access tokens, as a provider's audience mapper adds it for verification.
    static let verificationAudience = "exposuresuite-verification"

    struct AccessClaims: JWTPayload {
        struct RealmAccess: Codable { var roles: [String] }
        var iss: IssuerClaim
        var sub: SubjectClaim
        var aud: AudienceClaim
        var exp: ExpirationClaim
        var azp: String
        var realm_access: RealmAccess
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    struct IDClaims: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var aud: AudienceClaim
        var exp: ExpirationClaim
        var iat: IssuedAtClaim
        var nonce: String
        var preferred_username: String
        var groups: [String]?
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }
}

/// Form encoding as the provider reads it (written independently of the portal's, so a bug is not shared).
enum FormText {
    static func decode(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")) ?? ""
    }
}
