/// How one typed secret is stored: the hash and the id of the key that made it (`SecretHashKey.legacyID` for a plain
/// SHA-256 of before).
public struct KeyedSecretHash: Sendable, Hashable {
    public let keyID: String
    public let hash: String

    public init(keyID: String, hash: String) {
        self.keyID = keyID
        self.hash = hash
    }
}
