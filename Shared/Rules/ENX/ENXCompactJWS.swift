import Crypto
import Foundation

/// The compact JWS form both of the ENX verification server's tokens have (docs/enx.md, 3.2 and 3.3): a header
/// `{"alg":"ES256","kid":…,"typ":"JWT"}`, a JSON payload and the ECDSA P-256 signature as raw R‖S, each segment
/// base64url without padding. Only ES256 with a `kid` is read: `none`, HS256 and a header without `kid` are not.
public struct ENXCompactJWS: Sendable {
    /// The header's `kid`: which key signed it.
    public let keyID: String
    /// The payload's bytes, as signed; nothing in them is trusted before `isSigned(by:)`.
    public let payload: Data
    /// `header.payload`, the bytes signed.
    let signingInput: Data
    let signature: P256.Signing.ECDSASignature

    /// `payload` signed with `key`, naming it `keyID`.
    public static func sign(payload: Data, keyID: String, with key: P256.Signing.PrivateKey) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let input = Array(try encoder.encode(Header(alg: "ES256", kid: keyID, typ: "JWT"))).base64URLString + "." + Array(payload).base64URLString
        let signature = try key.signature(for: Data(input.utf8))
        return input + "." + Array(signature.rawRepresentation).base64URLString
    }

    /// Reads a token: three base64url segments, a header of `alg` `ES256` with a non-empty `kid`, a 64-byte
    /// signature. Nil for anything else.
    public init?(_ token: String) {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3,
              let headerBytes = Data(base64URL: String(segments[0])),
              let header = try? JSONDecoder().decode(Header.self, from: headerBytes),
              header.alg == "ES256", let keyID = header.kid, !keyID.isEmpty,
              let payload = Data(base64URL: String(segments[1])),
              let signatureBytes = Data(base64URL: String(segments[2])), signatureBytes.count == 64,
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        else { return nil }
        self.keyID = keyID
        self.payload = payload
        signingInput = Data("\(segments[0]).\(segments[1])".utf8)
        self.signature = signature
    }

    /// Whether `key` made the signature over `header.payload`.
    public func isSigned(by key: P256.Signing.PublicKey) -> Bool {
        key.isValidSignature(signature, for: signingInput)
    }

    struct Header: Codable {
        let alg: String
        let kid: String?
        let typ: String?
    }
}
