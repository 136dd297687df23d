import Crypto
import ExposureCore
import ExposureTestSupport
import Foundation
import Hummingbird
import JWTKit
import NIOCore
import Testing
@testable import Verification
@testable import VerificationDomain

/// Officers' tokens from an OIDC provider: verification fetches the provider's JWKS (as from Keycloak's
/// `…/protocol/openid-connect/certs`) and trusts the keys it lists.
@Suite struct JWKSTests {
    /// A provider serving `jwks` at Keycloak's path; `body` gets the JWKS URL.
    func withProvider(_ jwks: MutableJWKS, _ body: (URL) async throws -> Void) async throws {
        let router = Router()
        router.get("/realms/health/protocol/openid-connect/certs") { _, _ in
            guard let current = jwks.current else { return Response(status: .internalServerError) }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: current)))
        }
        let provider = TestServices.standIn("provider", listener: "http", router: router)
        try await TestServices.withRunning([provider]) { running in
            try await body(URL(string: "http://127.0.0.1:\(await running.bundle("provider").port("http"))/realms/health/protocol/openid-connect/certs")!)
        }
    }

    static let provider = TokenBinding(issuer: "https://id.example/realms/health", audience: "exposuresuite-verification")

    func token(_ key: P256.Signing.PrivateKey, kid: String, roles: [String], clock: ManualClock) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: try ES256PrivateKey(pem: key.pemRepresentation), kid: JWKIdentifier(string: kid))
        return try await keys.sign(
            OfficerClaims(
                exp: .init(value: clock.now().addingTimeInterval(300)), iss: .init(value: Self.provider.issuer), aud: .init(value: Self.provider.audience),
                sub: "officer-1", realm_access: .init(roles: roles)
            ),
            kid: JWKIdentifier(string: kid)
        )
    }

    @Test(arguments: TestDatabase.all)
    func tokensSignedWithAPublishedKeyAreTrusted(kind: TestDatabase) async throws {
        let providerKey = P256.Signing.PrivateKey()
        let jwks = MutableJWKS()
        jwks.publish([("key-1", providerKey)])
        try await withProvider(jwks) { jwksURL in
            try await VerificationHarness.run(on: kind, environment: [
                "JWT_JWKS_URL": jwksURL.absoluteString, "JWT_JWKS_ISSUER": Self.provider.issuer, "JWT_JWKS_AUDIENCE": Self.provider.audience,
                "JWT_PUBLIC_KEY_FILES": "",
            ]) { h in
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

    /// `JWT_PUBLIC_KEY_FILES` lists several keys (the portal's, a provider's): a token signed with any of them is
    /// trusted, whatever the order.
    @Test(arguments: TestDatabase.all)
    func everyStaticKeyIsTrusted(kind: TestDatabase) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = [ES256PrivateKey(), ES256PrivateKey(), ES256PrivateKey()]
        var files: [String] = []
        for (index, key) in keys.enumerated() {
            let path = directory.appendingPathComponent("key-\(index).pem").path
            try key.publicKey.pemRepresentation.write(toFile: path, atomically: true, encoding: .utf8)
            files.append("\(path)|\(VerificationHarness.officerIssuer)|\(VerificationHarness.officerAudience)")
        }
        try await VerificationHarness.run(on: kind, environment: ["JWT_PUBLIC_KEY_FILES": files.joined(separator: ",")]) { h in
            for key in keys {
                #expect(try await h.createTeleTAN(token: try await h.officerToken(roles: ["c19hotline"], key: key)).status == 201)
            }
            let stranger = try await h.officerToken(roles: ["c19hotline"], key: ES256PrivateKey())
            #expect(try await h.createTeleTAN(token: stranger).status == 401)
        }
    }

    /// Each refresh trusts exactly the keys the provider publishes then: a withdrawn key (rotated out, or revoked after
    /// a leak) is refused from the next refresh on. A refresh that fails keeps the keys fetched before.
    @Test func aKeyTheProviderWithdrewIsRefusedAfterTheNextRefresh() async throws {
        let old = P256.Signing.PrivateKey(), new = P256.Signing.PrivateKey()
        let provider = MutableJWKS()
        provider.publish([("old", old)])
        try await withProvider(provider) { jwksURL in
            let source = SigningKeySource(jwksURL: jwksURL, jwksBinding: Self.provider, publicKeyFiles: [])
            let keys = try await source.makeKeys()
            let clock = ManualClock()
            func trusted(_ key: P256.Signing.PrivateKey, kid: String) async throws -> Bool {
                let token = try await token(key, kid: kid, roles: ["c19hotline"], clock: clock)
                return (try? await keys.verify(token)) != nil
            }
            try await source.refreshJWKS(into: keys, logger: TestLogger.quiet)
            #expect(try await trusted(old, kid: "old"))
            #expect(try await !trusted(new, kid: "new"))

            provider.publish([("new", new)])
            try await source.refreshJWKS(into: keys, logger: TestLogger.quiet)
            #expect(try await trusted(new, kid: "new"))
            #expect(try await !trusted(old, kid: "old"))
            // Nor under another key id, which JWTKit would try its first key for.
            #expect(try await !trusted(old, kid: "new"))

            provider.publish(nil)
            await #expect(throws: (any Error).self) { try await source.refreshJWKS(into: keys, logger: TestLogger.quiet) }
            #expect(try await trusted(new, kid: "new"))
        }
    }

    /// Every key source vouches only for tokens of its own issuer and audience, even where two sources are trusted.
    @Test func theIssuerAndAudienceOfTheKeySourceAreAlwaysChecked() async throws {
        let portalKey = ES256PrivateKey(), providerKey = ES256PrivateKey()
        let portalKeys = JWTKeyCollection(), providerKeys = JWTKeyCollection()
        await portalKeys.add(ecdsa: portalKey)
        await providerKeys.add(ecdsa: providerKey)
        let portal = TokenBinding(issuer: "exposuresuite-portal", audience: "exposuresuite-verification")
        let clock = ManualClock()
        let verifier = OfficerTokenVerifier(
            keys: OfficerSigningKeys(staticKeys: [.init(keys: portalKeys, binding: portal), .init(keys: providerKeys, binding: Self.provider)]),
            clock: clock
        )
        func sign(_ keys: JWTKeyCollection, iss: String?, aud: [String]?, sub: String? = "officer-1") async throws -> String {
            try await keys.sign(OfficerClaims(
                exp: .init(value: clock.now().addingTimeInterval(60)), iss: iss.map { IssuerClaim(value: $0) },
                aud: aud.map { AudienceClaim(value: $0) }, sub: sub.map { SubjectClaim(value: $0) }, realm_access: .init(roles: ["c19hotline"])
            ))
        }
        let good = try await sign(providerKeys, iss: Self.provider.issuer, aud: [Self.provider.audience, "account"])
        #expect(try await verifier.officer(of: good) == VerifiedOfficer(issuer: Self.provider.issuer, subject: "officer-1", roles: ["c19hotline"], authority: .named("default")))
        #expect(try await verifier.officer(of: try await sign(portalKeys, iss: portal.issuer, aud: [portal.audience])).issuer == portal.issuer)
        let refused = [
            try await sign(providerKeys, iss: "https://evil.example", aud: [Self.provider.audience]),
            try await sign(providerKeys, iss: Self.provider.issuer, aud: ["account"]),
            try await sign(providerKeys, iss: Self.provider.issuer, aud: nil),
            try await sign(providerKeys, iss: nil, aud: nil),
            // The provider's key cannot speak for the portal, nor the portal's for the provider.
            try await sign(providerKeys, iss: portal.issuer, aud: [portal.audience]),
            try await sign(portalKeys, iss: Self.provider.issuer, aud: [Self.provider.audience]),
            // A token that names no officer cannot be counted against an officer's limit.
            try await sign(providerKeys, iss: Self.provider.issuer, aud: [Self.provider.audience], sub: nil),
        ]
        for bad in refused {
            await #expect(throws: OfficerTokenRejected()) { _ = try await verifier.officer(of: bad) }
        }
        // A token not yet valid or expired beyond the leeway is refused.
        clock.advance(by: 120)
        await #expect(throws: OfficerTokenRejected()) { _ = try await verifier.officer(of: good) }
    }
}

/// A provider's JWKS that a test changes: nil answers 500.
final class MutableJWKS: @unchecked Sendable {
    private let lock = NSLock()
    private var jwks: String?

    var current: String? { lock.withLock { jwks } }

    func publish(_ keys: [(kid: String, key: P256.Signing.PrivateKey)]?) {
        let text = keys.map { keys in
            let entries = keys.map { entry in
                let raw = Array(entry.key.publicKey.rawRepresentation)
                return #"{"kty":"EC","crv":"P-256","use":"sig","alg":"ES256","kid":"\#(entry.kid)","x":"\#(raw[0..<32].base64URLString)","y":"\#(raw[32..<64].base64URLString)"}"#
            }
            return #"{"keys":[\#(entries.joined(separator: ","))]}"#
        }
        lock.withLock { jwks = text }
    }
}
