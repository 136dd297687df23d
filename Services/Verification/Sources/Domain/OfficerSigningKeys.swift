import JWTKit
import Synchronization

/// The keys an officer's token may be signed with: each static key (`JWT_PUBLIC_KEY_FILES`) and the keys the OIDC
/// provider publishes now (`JWT_JWKS_URL`).
///
/// JWTKit keeps one key without a key id per collection (another one replaces it), so each static key has a
/// collection of its own, tried in turn. The published keys are replaced as a whole at each refresh: a key the
/// provider withdrew (rotated out, or revoked after a leak) stops being trusted then, where adding each refresh to one
/// collection would trust it until a restart.
public final class OfficerSigningKeys: Sendable {
    private let staticKeys: [JWTKeyCollection]
    private let published = Mutex<JWTKeyCollection?>(nil)

    public init(staticKeys: [JWTKeyCollection] = []) {
        self.staticKeys = staticKeys
    }

    /// Trusts exactly the keys of `jwksJSON` from now on, besides the static keys. A JWKS that cannot be read changes
    /// nothing: the keys fetched before stay trusted.
    public func replacePublishedKeys(jwksJSON: String) async throws {
        let fresh = JWTKeyCollection()
        try await fresh.add(jwksJSON: jwksJSON)
        published.withLock { $0 = fresh }
    }

    /// The token's payload when one of the keys signed it; otherwise the last key's error.
    func verify<Payload: JWTPayload>(_ token: String, as type: Payload.Type) async throws -> Payload {
        let collections = (published.withLock { $0 }.map { [$0] } ?? []) + staticKeys
        var lastError: any Error = JWTError.generic(identifier: "keys", reason: "no signing key is configured")
        for keys in collections {
            do {
                return try await keys.verify(token, as: type)
            } catch {
                lastError = error
            }
        }
        throw lastError
    }
}
