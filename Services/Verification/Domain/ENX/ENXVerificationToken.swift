import Crypto
import ExposureRules
import Foundation

/// The verification token `/api/verify` answers and `/api/certificate` takes back (docs/enx.md, 3.2): an ES256 JWT of
/// the health authority's signing key, issued and addressed to the installation's token issuer, living 24 hours, whose
/// `sub` says the test type and dates. The phone treats it as opaque. Its `jti` (96 random bytes) is what the database
/// knows the token by, and only as SHA-256: a copy of the table does not let anyone spend a token.
public struct ENXVerificationToken: Sendable, Equatable {
    public struct Claims: Sendable, Equatable, Codable {
        public var aud: String
        public var exp: Int64
        public var iat: Int64
        public var iss: String
        public var jti: String
        public var sub: String
    }

    public let keyID: String
    public let claims: Claims

    /// How long a token lives: the reference's 24 hours.
    public static let lifetime: Int64 = 24 * 3600

    /// A new token's claims for `subject`, issued at `now` by `issuer`, with a fresh `jti`.
    public static func claims(issuer: String, subject: ENXTokenSubject, now: Int64, random: any RandomSource) -> Claims {
        Claims(
            aud: issuer, exp: now + lifetime, iat: now, iss: issuer, jti: Data(random.bytes(count: 96)).base64EncodedString().replacingOccurrences(of: "=", with: ""),
            sub: subject.text
        )
    }

    /// The compact JWS of `claims`, signed with `key` named `keyID`.
    public static func sign(_ claims: Claims, keyID: String, with key: P256.Signing.PrivateKey) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try ENXCompactJWS.sign(payload: try encoder.encode(claims), keyID: keyID, with: key)
    }

    /// What the database stores of a token: SHA-256 of its `jti`, hex.
    public static func storedID(jti: String) -> String {
        SecretHash.sha256Hex(jti)
    }

    /// Why a presented token is refused before the database is asked: each is 400 `token_invalid`.
    public enum Problem: Error, Sendable, Equatable {
        case malformed
        case unknownKey
        case badSignature
        case expired
        case wrongIssuer
        case badSubject
    }

    /// A token read and checked offline: signed by the key its `kid` names (found with `key`), issued and addressed
    /// to `issuer`, valid at `now` (`exp` not passed, `iat` not in the future), with a subject of two or three parts.
    public static func verify(
        _ text: String, issuer: String, now: Int64, key: (String) async throws -> P256.Signing.PublicKey?
    ) async throws -> (claims: Claims, subject: ENXTokenSubject) {
        guard let jws = ENXCompactJWS(text), let claims = try? JSONDecoder().decode(Claims.self, from: jws.payload) else {
            throw Problem.malformed
        }
        guard let publicKey = try await key(jws.keyID) else { throw Problem.unknownKey }
        guard jws.isSigned(by: publicKey) else { throw Problem.badSignature }
        guard claims.exp > now, claims.iat <= now else { throw Problem.expired }
        guard claims.iss == issuer, claims.aud == issuer else { throw Problem.wrongIssuer }
        guard let subject = ENXTokenSubject(claims.sub) else { throw Problem.badSubject }
        return (claims, subject)
    }
}
