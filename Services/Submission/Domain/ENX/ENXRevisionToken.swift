import Crypto
import ExposureRules
import Foundation

/// The revision token `/v1/publish` answers: the keys of the upload, sealed, so that the phone can later publish
/// the same keys again under another certificate (a likely report confirmed by a test) and prove they were its own.
/// The reference seals a protobuf with AES-GCM; any opaque authenticated form does (design sheet enx.md, 3.4). This
/// one is AES-256-GCM over the keys' JSON (key, start, period), base64, under a key held outside the database.
public struct ENXRevisionToken: Sendable, Equatable {
    public struct Key: Sendable, Hashable, Codable {
        public let key: String
        public let rollingStartNumber: Int64
        public let rollingPeriod: Int64

        public init(key: String, rollingStartNumber: Int64, rollingPeriod: Int64) {
            self.key = key
            self.rollingStartNumber = rollingStartNumber
            self.rollingPeriod = rollingPeriod
        }

        enum CodingKeys: String, CodingKey {
            case key = "k"
            case rollingStartNumber = "s"
            case rollingPeriod = "p"
        }
    }

    public let keys: [Key]

    public init(keys: [Key]) {
        self.keys = keys
    }

    /// Keys that ended more than this long before a token is made are left out of it: they can no longer be published.
    public static let keyAge: Int64 = 15 * 86400
    /// Bound into every seal, so that nothing else sealed under the same key opens as a token.
    static let associatedData = Data("exposuresuite enx revision token v1".utf8)

    /// The token of `keys` (those still young enough), sealed under `key` with a fresh nonce.
    public func seal(under key: SymmetricKey, now: Int64) throws -> String {
        let oldest = (now - Self.keyAge) / 600
        let young = keys.filter { $0.rollingStartNumber + $0.rollingPeriod >= oldest }
        let sealed = try AES.GCM.seal(try JSONEncoder().encode(young), using: key, authenticating: Self.associatedData)
        guard let combined = sealed.combined else { throw SealFailed() }
        return combined.base64EncodedString()
    }

    struct SealFailed: Error {}

    /// The keys of a token sealed under `key`; nil when it was not (altered, foreign, or not a token at all).
    public static func open(_ text: String, under key: SymmetricKey) -> ENXRevisionToken? {
        guard let bytes = Data(lenientBase64: text),
              let box = try? AES.GCM.SealedBox(combined: bytes),
              let plain = try? AES.GCM.open(box, using: key, authenticating: associatedData),
              let keys = try? JSONDecoder().decode([Key].self, from: plain)
        else { return nil }
        return ENXRevisionToken(keys: keys)
    }
}
