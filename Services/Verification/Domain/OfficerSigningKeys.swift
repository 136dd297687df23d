import JWTKit
import Synchronization

/// The keys an officer's token may be signed with, each bound to the issuer and audience its tokens must carry: each
/// static key (`JWT_PUBLIC_KEY_FILES`) and the keys the OIDC provider publishes now (`JWT_JWKS_URL`).
///
/// JWTKit keeps one key without a key id per collection (another one replaces it), so each static key has a
/// collection of its own, tried in turn. The published keys are replaced as a whole at each refresh: a key the
/// provider withdrew (rotated out, or revoked after a leak) stops being trusted then, where adding each refresh to one
/// collection would trust it until a restart.
public final class OfficerSigningKeys: Sendable {
    /// One static key and what its tokens must say.
    public struct StaticKey: Sendable {
        public let keys: JWTKeyCollection
        public let binding: TokenBinding

        public init(keys: JWTKeyCollection, binding: TokenBinding) {
            self.keys = keys
            self.binding = binding
        }
    }

    private let staticKeys: [StaticKey]
    private let publishedBinding: TokenBinding?
    private let published = Mutex<JWTKeyCollection?>(nil)

    public init(staticKeys: [StaticKey] = [], publishedBinding: TokenBinding? = nil) {
        self.staticKeys = staticKeys
        self.publishedBinding = publishedBinding
    }

    /// Trusts exactly the keys of `jwksJSON` from now on, besides the static keys. A JWKS that cannot be read changes
    /// nothing: the keys fetched before stay trusted.
    public func replacePublishedKeys(jwksJSON: String) async throws {
        let fresh = JWTKeyCollection()
        try await fresh.add(jwksJSON: jwksJSON)
        published.withLock { $0 = fresh }
    }

    /// The token's claims when one of the key sources signed it and the token carries that source's issuer and
    /// audience; otherwise the last source's error.
    public func verify(_ token: String) async throws -> OfficerClaims {
        var sources = staticKeys.map { ($0.keys, $0.binding) }
        if let publishedBinding, let keys = published.withLock({ $0 }) { sources.insert((keys, publishedBinding), at: 0) }
        var lastError: any Error = JWTError.generic(identifier: "keys", reason: "no signing key is configured")
        for (keys, binding) in sources {
            do {
                let claims = try await keys.verify(token, as: OfficerClaims.self)
                guard binding.accepts(issuer: claims.iss?.value, audiences: claims.aud?.value) else {
                    lastError = JWTError.claimVerificationFailure(failedClaim: claims.iss, reason: "issuer or audience of another key source")
                    continue
                }
                return claims
            } catch {
                lastError = error
            }
        }
        throw lastError
    }
}
