import Crypto
import Foundation

/// The HMAC that binds an ENX verification certificate to the keys uploaded with it (`ekeyhmac` at the verification
/// server, the certificate's `tekmac` claim, recomputed by the key server from `hmacKey`). The phone makes a random
/// key, MACs its keys with it, and sends the MAC for certification and the key with the upload, so the verification
/// server certifies keys it never sees.
///
/// The text MACed is each key as `<key>.<rollingStartNumber>.<rollingPeriod>.<transmissionRisk>`, the key string
/// exactly as the upload's JSON spells it, sorted by that string in byte order and joined with commas. When every
/// transmission risk is 0 (newer phones leave it out) the key server also accepts the text without it.
public enum ENXExposureKeyHMAC {
    /// One uploaded key as the MAC sees it.
    public struct Key: Sendable, Equatable {
        /// The key's base64 text as sent, never re-encoded.
        public let key: String
        public let rollingStartNumber: Int64
        public let rollingPeriod: Int64
        /// 0 when the upload leaves it out.
        public let transmissionRisk: Int64

        public init(key: String, rollingStartNumber: Int64, rollingPeriod: Int64, transmissionRisk: Int64 = 0) {
            self.key = key
            self.rollingStartNumber = rollingStartNumber
            self.rollingPeriod = rollingPeriod
            self.transmissionRisk = transmissionRisk
        }
    }

    /// The text that is MACed; without the transmission risks when `withTransmissionRisk` is false.
    public static func cleartext(_ keys: [Key], withTransmissionRisk: Bool = true) -> String {
        // Byte order of the key text, as Go's strings.Compare: '+' < '/' < digits < 'A'–'Z' < 'a'–'z'.
        let sorted = keys.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        return sorted.map { key in
            let fields = "\(key.key).\(key.rollingStartNumber).\(key.rollingPeriod)"
            return withTransmissionRisk ? "\(fields).\(key.transmissionRisk)" : fields
        }.joined(separator: ",")
    }

    /// The MAC a phone sends as `ekeyhmac`: HMAC-SHA256 under `hmacKey` over the text with transmission risks.
    public static func mac(_ keys: [Key], hmacKey: Data) -> Data {
        mac(cleartext(keys), hmacKey: hmacKey)
    }

    /// Whether `tekmac` is the MAC of `keys` under `hmacKey`, in the form with transmission risks or, when every one
    /// is 0, the form without; compared in constant time. No keys match nothing.
    public static func matches(_ keys: [Key], hmacKey: Data, tekmac: Data) -> Bool {
        guard !keys.isEmpty, !hmacKey.isEmpty else { return false }
        let full = HMAC<SHA256>.isValidAuthenticationCode(tekmac, authenticating: Data(cleartext(keys).utf8), using: SymmetricKey(data: hmacKey))
        guard keys.allSatisfy({ $0.transmissionRisk == 0 }) else { return full }
        let short = HMAC<SHA256>.isValidAuthenticationCode(
            tekmac, authenticating: Data(cleartext(keys, withTransmissionRisk: false).utf8), using: SymmetricKey(data: hmacKey)
        )
        return full || short
    }

    static func mac(_ text: String, hmacKey: Data) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: SymmetricKey(data: hmacKey)))
    }
}
