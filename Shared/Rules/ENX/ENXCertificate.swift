import Crypto
import Foundation

/// An ENX verification certificate as a compact JWS: `ES256`, the signing key's `kid` in the header, the
/// `ENXCertificateClaims` as payload, the signature as raw R‖S in base64url (docs/enx.md). The verification server
/// signs one per verified code with its health authority's key; the key server reads one from an upload and trusts
/// it only once `verify` has passed.
public struct ENXCertificate: Sendable {
    /// The header's `kid`: which of the issuer's keys signed it.
    public let keyID: String
    /// As the token says; nothing in them is trusted before `verify`.
    public let claims: ENXCertificateClaims
    /// The token as read.
    let jws: ENXCompactJWS

    /// Signs `claims` with `key`, naming it `keyID`.
    public static func sign(_ claims: ENXCertificateClaims, keyID: String, with key: P256.Signing.PrivateKey) throws -> String {
        try ENXCompactJWS.sign(payload: claims.json(), keyID: keyID, with: key)
    }

    /// Reads a certificate: an `ENXCompactJWS` whose claims have the right types (`aud` a string). Nil for anything
    /// else, including `none` and HS256.
    public init?(_ token: String) {
        guard let jws = ENXCompactJWS(token), let claims = try? JSONDecoder().decode(ENXCertificateClaims.self, from: jws.payload) else {
            return nil
        }
        keyID = jws.keyID
        self.claims = claims
        self.jws = jws
    }

    /// Why a certificate is not trusted: for logs and tests; the key server answers every one alike.
    public enum Problem: Error, Equatable, Sendable {
        case wrongAudience
        case badSignature
        case expired
        case notYetValid
        case unknownReportType
    }

    /// The claims, once the certificate is shown to be signed by `key` for `audience` and valid at `now` (Unix
    /// seconds; `exp` not passed, `iat` and `nbf` not in the future, without leeway as the reference key server),
    /// with a report type of the four. The issuer and the key were chosen by the caller from `claims.iss` and `keyID`.
    public func verify(audience: String, key: P256.Signing.PublicKey, now: Int64) throws(Problem) -> ENXCertificateClaims {
        guard claims.aud == audience else { throw .wrongAudience }
        guard jws.isSigned(by: key) else { throw .badSignature }
        guard claims.exp >= now else { throw .expired }
        guard claims.iat <= now, claims.nbf <= now else { throw .notYetValid }
        guard ENXReportType(rawValue: claims.reportType) != nil else { throw .unknownReportType }
        return claims
    }
}
