import Crypto
import VerificationDomain

/// What the ENX family needs of verification's health authorities, given by the service that registers it
/// (`ENXFamily.Context`): whether an authority may be served now, and its signing keys. The family keeps no keys of
/// its own; tokens and certificates are signed with the authority's (docs/enx.md), whose public halves every key
/// server can read at `/jwks/{authorityId}`.
public protocol ENXAuthorities: Sendable {
    /// Whether `authority` exists and is not disabled: a disabled authority's keys are answered as unknown ones.
    func isServed(_ authority: String) async throws -> Bool
    /// The authority's active signing key and its `kid`; one is made when it has none yet.
    func signer(of authority: String) async throws -> ENXSigner
    /// The live public key `keyID` names, or nil.
    func publicKey(keyID: String) async throws -> P256.Signing.PublicKey?
    /// Counts `count` codes of the admin key `keyName` of `authority` against the limits every issuer key has
    /// (`ISSUER_CODES_PER_HOUR`, `ISSUER_CODES_PER_DAY`, or the authority's lower ones), shared by all replicas. Nil
    /// when counted; the seconds until the refusing window ends when they would pass a limit (nothing counted).
    func countIssuance(_ count: Int, keyName: String, authority: String) async throws -> Int64?
}

/// A health authority's active signing key.
public struct ENXSigner: Sendable {
    public let keyID: String
    public let privateKey: P256.Signing.PrivateKey

    public init(keyID: String, privateKey: P256.Signing.PrivateKey) {
        self.keyID = keyID
        self.privateKey = privateKey
    }
}
