import Crypto
import ExposureCore

/// Where a phone's redemption of a one-time code came from, as this service tells verification (`GuessOrigin` in
/// openapi/verification.yaml), so that verification can limit wrong codes per phone and per network as it limits wrong
/// teleTANs, and one attacker's guesses from many networks no longer lock out every phone of a family.
///
/// Never an address: two HMAC-SHA256 (cut to 128 bits) of the phone's rate-limit key (an IPv4 address, an IPv6 /64)
/// and of its network (/24, /48), under a key derived from this service's token at verification
/// (`VERIFICATION_API_TOKEN`). Every replica derives the same key, so a phone is one origin whichever replica it
/// reaches; verification keeps only the SHA-256 of that token, so it cannot test guesses of addresses against the
/// hashes (2³² IPv4 addresses would take seconds under a known key). The hashes change when the token is replaced.
/// Nothing here is logged or stored.
struct PhoneOrigins: Sendable {
    private let key: SymmetricKey

    init(serviceToken: String) {
        key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Array(serviceToken.utf8)), info: Array("one-time code redemption origin".utf8), outputByteCount: 32
        )
    }

    /// The hashes of `address`'s source and network; nil without an address (verification then counts the request as
    /// of one unknown phone).
    func origin(of address: IPAddress?) -> (source: String, network: String)? {
        guard let address else { return nil }
        return (hash(address.rateLimitKey, label: 1), hash(address.networkKey, label: 2))
    }

    private func hash(_ bytes: [UInt8], label: UInt8) -> String {
        Array(HMAC<SHA256>.authenticationCode(for: [label] + bytes, using: key)).prefix(16).hexString
    }
}
