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
    /// `header.payload`, the bytes signed.
    let signingInput: Data
    let signature: P256.Signing.ECDSASignature

    /// Signs `claims` with `key`, naming it `keyID`.
    public static func sign(_ claims: ENXCertificateClaims, keyID: String, with key: P256.Signing.PrivateKey) throws -> String {
        let header = Header(alg: "ES256", kid: keyID, typ: "JWT")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let input = Array(try encoder.encode(header)).base64URLString + "." + Array(claims.json()).base64URLString
        let signature = try key.signature(for: Data(input.utf8))
        return input + "." + Array(signature.rawRepresentation).base64URLString
    }

    /// Reads a certificate: three base64url segments, a header of `alg` `ES256` with a `kid`, claims of the right
    /// types (`aud` a string), a 64-byte signature. Nil for anything else, including `none` and HS256.
    public init?(_ token: String) {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3,
              let headerBytes = Data(base64URL: String(segments[0])),
              let header = try? JSONDecoder().decode(Header.self, from: headerBytes),
              header.alg == "ES256", let keyID = header.kid, !keyID.isEmpty,
              let payload = Data(base64URL: String(segments[1])),
              let claims = try? JSONDecoder().decode(ENXCertificateClaims.self, from: payload),
              let signatureBytes = Data(base64URL: String(segments[2])), signatureBytes.count == 64,
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        else { return nil }
        self.keyID = keyID
        self.claims = claims
        signingInput = Data("\(segments[0]).\(segments[1])".utf8)
        self.signature = signature
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
        guard key.isValidSignature(signature, for: signingInput) else { throw .badSignature }
        guard claims.exp >= now else { throw .expired }
        guard claims.iat <= now, claims.nbf <= now else { throw .notYetValid }
        guard ENXReportType(rawValue: claims.reportType) != nil else { throw .unknownReportType }
        return claims
    }

    struct Header: Codable {
        let alg: String
        let kid: String?
        let typ: String?
    }
}
