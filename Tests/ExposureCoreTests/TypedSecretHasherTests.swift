import Crypto
import ExposureCore
import Foundation
import Testing

@Suite struct TypedSecretHasherTests {
    static let one = SecretHashKey(id: "k1", key: [UInt8](repeating: 1, count: 32))
    static let two = SecretHashKey(id: "k2", key: [UInt8](repeating: 2, count: 32))

    @Test func newSecretsAreHashedUnderTheFirstKeyAndLookedUpUnderEveryKey() {
        let hasher = TypedSecretHasher(keys: [Self.two, Self.one])
        let stored = hasher.hash("ABCDEFGHJK")
        #expect(stored.keyID == "k2")
        #expect(stored.hash == Array(HMAC<SHA256>.authenticationCode(for: Array("ABCDEFGHJK".utf8), using: SymmetricKey(data: [UInt8](repeating: 2, count: 32)))).hexString)
        let candidates = hasher.candidates("ABCDEFGHJK")
        #expect(candidates.map(\.keyID) == ["k2", "k1", "sha256"])
        #expect(candidates.contains(TypedSecretHasher(keys: [Self.one]).hash("ABCDEFGHJK")))
        #expect(candidates.last?.hash == SecretHash.sha256Hex("ABCDEFGHJK"))
        #expect(TypedSecretHasher(keys: [Self.one], acceptsLegacy: false).candidates("ABCDEFGHJK").map(\.keyID) == ["k1"])
    }

    @Test func keyListsParseAndRefuseWhatIsWeak() throws {
        let key = Data(repeating: 7, count: 32).base64EncodedString()
        let keys = try SecretHashKey.parseList("new:\(key), old:\(key)\n# a comment\n", variable: "KEYS")
        #expect(keys.map(\.id) == ["new", "old"])
        for bad in ["", "new", "new:\(Data(repeating: 7, count: 31).base64EncodedString())", "sha256:\(key)", "a:\(key),a:\(key)", "bad id:\(key)", "new:not base64!"] {
            #expect(throws: ConfigurationError.self) { try SecretHashKey.parseList(bad, variable: "KEYS") }
        }
        // The message names the entry, never its value.
        do {
            _ = try SecretHashKey.parseList("new:\(Data(repeating: 7, count: 31).base64EncodedString())", variable: "KEYS")
        } catch {
            #expect(!error.description.contains(Data(repeating: 7, count: 31).base64EncodedString()))
        }
    }

    @Test func aNewEntryParsesBack() throws {
        let entry = SecretHashKey.newEntry(id: "k9", random: SystemRandomSource())
        #expect(try SecretHashKey.parseList(entry, variable: "KEYS").map(\.id) == ["k9"])
    }
}
