import Crypto
import ExposureRules
import Foundation

extension AuthoritySigningKey {
    /// The public point as an RFC 7517 JSON Web Key of `kty` EC and `crv` P-256 writes it: unpadded base64url of the
    /// coordinates, 32 bytes each.
    public var jwkCoordinates: (x: String, y: String) {
        let raw = publicKey.rawRepresentation  // x ‖ y
        return (raw.prefix(32).base64URLString, raw.suffix(32).base64URLString)
    }
}
