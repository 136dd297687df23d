import Crypto
import ExposureCore
import Foundation

/// Proof Key for Code Exchange (RFC 7636, S256): an intercepted authorization code is useless without the
/// verifier, which never leaves the portal.
enum PKCE {
    static func verifier(using random: any RandomSource) -> String {
        base64URL(random.bytes(count: 32))
    }

    static func challenge(for verifier: String) -> String {
        base64URL(Array(SHA256.hash(data: Array(verifier.utf8))))
    }

    /// Unpadded base64url (RFC 4648 §5).
    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
