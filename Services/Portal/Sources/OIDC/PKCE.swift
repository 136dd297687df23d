import Crypto
import ExposureCore
import Foundation

/// Proof Key for Code Exchange (RFC 7636, S256): an intercepted authorization code is useless without the
/// verifier, which never leaves the portal.
enum PKCE {
    static func verifier(using random: any RandomSource) -> String {
        random.bytes(count: 32).base64URLString
    }

    static func challenge(for verifier: String) -> String {
        Array(SHA256.hash(data: Array(verifier.utf8))).base64URLString
    }
}
