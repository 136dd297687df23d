import Crypto
import ExposureCore
import ExposureTestSupport
import Foundation
import Hummingbird
import JWTKit
import NIOCore
import Testing
@testable import Verification

/// Officers' tokens from an OIDC provider: verification fetches the provider's JWKS (as from Keycloak's
/// `…/protocol/openid-connect/certs`) and trusts the keys it lists.
@Suite struct JWKSTests {
    /// A provider that publishes one ES256 key under the key id `kid`.
    func withJWKS(key: P256.Signing.PrivateKey, kid: String, _ body: (String) async throws -> Void) async throws {
        let raw = Array(key.publicKey.rawRepresentation)
        let jwks = """
            {"keys":[{"kty":"EC","crv":"P-256","use":"sig","alg":"ES256","kid":"\(kid)","x":"\(raw[0..<32].base64URLString)","y":"\(raw[32..<64].base64URLString)"}]}
            """
        let router = Router()
        router.get("/realms/health/protocol/openid-connect/certs") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: jwks)))
        }
        let provider = TestServices.standIn("provider", listener: "http", router: router)
        try await TestServices.withRunning([provider]) { running in
            try await body("http://127.0.0.1:\(await running.bundle("provider").port("http"))/realms/health/protocol/openid-connect/certs")
        }
    }

    func token(_ key: P256.Signing.PrivateKey, kid: String, roles: [String], clock: ManualClock) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: try ES256PrivateKey(pem: key.pemRepresentation), kid: JWKIdentifier(string: kid))
        return try await keys.sign(
            OfficerClaims(exp: .init(value: clock.now().addingTimeInterval(300)), realm_access: .init(roles: roles)),
            kid: JWKIdentifier(string: kid)
        )
    }

    @Test(arguments: TestDatabase.all)
    func tokensSignedWithAPublishedKeyAreTrusted(kind: TestDatabase) async throws {
        let providerKey = P256.Signing.PrivateKey()
        try await withJWKS(key: providerKey, kid: "key-1") { jwksURL in
            try await VerificationHarness.run(on: kind, environment: ["JWT_JWKS_URL": jwksURL, "JWT_PUBLIC_KEY_FILES": ""]) { h in
                let valid = try await token(providerKey, kid: "key-1", roles: ["c19hotline"], clock: h.clock)
                // The first refresh runs when the service starts; wait for it rather than for a fixed time.
                var status = 0
                for _ in 0..<100 where status != 201 {
                    status = try await h.createTeleTAN(token: valid).status
                    if status != 201 { try await Task.sleep(for: .milliseconds(50)) }
                }
                #expect(status == 201)
                let stranger = try await token(P256.Signing.PrivateKey(), kid: "key-1", roles: ["c19hotline"], clock: h.clock)
                let refused = try await h.createTeleTAN(token: stranger)
                #expect(refused.status == 401)
                let noRole = try await token(providerKey, kid: "key-1", roles: ["offline_access"], clock: h.clock)
                try #require(try await h.createTeleTAN(token: noRole).status == 401)
            }
        }
    }

    @Test func anIssuerAndAudienceAreCheckedWhenConfigured() async throws {
        let key = ES256PrivateKey()
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key)
        let clock = ManualClock()
        let verifier = OfficerTokenVerifier(keys: keys, clock: clock, issuer: "https://id.example/realms/health", audience: "verification")
        func sign(iss: String?, aud: [String]?) async throws -> String {
            try await keys.sign(OfficerClaims(
                exp: .init(value: clock.now().addingTimeInterval(60)), iss: iss.map { IssuerClaim(value: $0) },
                aud: aud.map { AudienceClaim(value: $0) }, realm_access: .init(roles: ["c19hotline"])
            ))
        }
        let good = try await sign(iss: "https://id.example/realms/health", aud: ["verification", "portal"])
        #expect(try await verifier.roles(of: good) == ["c19hotline"])
        for bad in [try await sign(iss: "https://evil.example", aud: ["verification"]), try await sign(iss: "https://id.example/realms/health", aud: ["portal"]), try await sign(iss: nil, aud: nil)] {
            await #expect(throws: APIError.self) { _ = try await verifier.roles(of: bad) }
        }
        // A token not yet valid or expired beyond the leeway is refused.
        clock.advance(by: 120)
        await #expect(throws: APIError.self) { _ = try await verifier.roles(of: good) }
    }
}
