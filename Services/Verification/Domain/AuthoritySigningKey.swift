import Crypto
import ExposureRules
import Foundation

/// One of a health authority's ES256 keys for what the authority signs (the verification certificates of the families
/// that carry one). Versions count up per authority; the newest live version signs, older live ones are still
/// published so that what they signed verifies until it expires, and a retired one is neither published nor kept (its
/// private half is erased).
public struct AuthoritySigningKey: Sendable, Equatable {
    public enum State: String, Sendable {
        /// The newest live version: it signs.
        case active
        /// A live version older than the active one: published for verification, signs nothing.
        case published
        /// Retired: no longer published, its private half erased.
        case retired
    }

    public let authority: String
    public let version: Int
    /// The public half, P-256.
    public let publicKey: P256.Signing.PublicKey
    public let createdAt: Int64
    /// The officer who made it (the token's subject); nil for one made by the system.
    public let createdBy: String?
    public let retiredAt: Int64?
    public let state: State

    public init(
        authority: String, version: Int, publicKey: P256.Signing.PublicKey, createdAt: Int64, createdBy: String?, retiredAt: Int64?,
        state: State
    ) {
        self.authority = authority
        self.version = version
        self.publicKey = publicKey
        self.createdAt = createdAt
        self.createdBy = createdBy
        self.retiredAt = retiredAt
        self.state = state
    }

    /// The JWS `kid` of this key: the authority's id and the version, as Google's verification server names realm keys
    /// (`r<realm>v<n>`) but with the authority's readable id. Unique: an authority's id never ends in `-v` and digits
    /// of another authority's key, since versions are only ever appended.
    public var keyID: String { Self.keyID(authority: authority, version: version) }

    public static func keyID(authority: String, version: Int) -> String { "\(authority)-v\(version)" }

    /// The authority and version a key id names, or nil when it is not one `keyID` writes.
    public static func parse(keyID: String) -> (authority: String, version: Int)? {
        guard let separator = keyID.range(of: "-v", options: .backwards) else { return nil }
        let authority = String(keyID[..<separator.lowerBound])
        let digits = keyID[separator.upperBound...]
        guard AuthorityID.isWellFormed(authority), (1...9).contains(digits.count), digits.first != "0",
              digits.allSatisfy({ $0.isASCII && $0.isNumber }), let version = Int(digits)
        else { return nil }
        return (authority, version)
    }

    /// Written out because swift-crypto's public keys are not `Equatable`: two keys are equal by their raw bytes.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.authority == rhs.authority && lhs.version == rhs.version && lhs.publicKey.rawRepresentation == rhs.publicKey.rawRepresentation
            && lhs.createdAt == rhs.createdAt && lhs.createdBy == rhs.createdBy && lhs.retiredAt == rhs.retiredAt && lhs.state == rhs.state
    }
}
