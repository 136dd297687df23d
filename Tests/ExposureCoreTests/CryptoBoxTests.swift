import Crypto
import ExposureNaCl
import ExposureRules
import Foundation
import Testing

/// NaCl's crypto_box through libsodium, against the CovidShield sheet's upload vector (../shared/design/covidshield.md):
/// secret keys SHA-256("app") and SHA-256("server"), nonce 00..17.
@Suite struct CryptoBoxTests {
    static let appSecret = Array(SHA256.hash(data: Data("app".utf8)))
    static let serverSecret = Array(SHA256.hash(data: Data("server".utf8)))
    static let nonce = (0..<24).map { UInt8($0) }
    static let upload = bytes("0a060880a895f605121c0a10000102030405060708090a0b0c0d0e0f1090dda1011890012003")
    static let sealed = bytes("7f1b031703128b549002f5b6884922fc55a7195613115e56deb20d7735b199f2e254c5c634d60715fde7a629cc878e3fc1447dda21dd")

    static func bytes(_ hex: String) -> [UInt8] {
        stride(from: 0, to: hex.count, by: 2).map {
            let start = hex.index(hex.startIndex, offsetBy: $0)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
        }
    }

    @Test func publicKeysAreTheSheets() throws {
        #expect(try CryptoBox.keyPair(secretKey: Self.appSecret).publicKey
            == Self.bytes("ecbdc1e65e50aa5d18eed343987b3049e0b29f3d66994938a94aeba61f3f8a14"))
        #expect(try CryptoBox.keyPair(secretKey: Self.serverSecret).publicKey
            == Self.bytes("af1855c95e561b3464c6ce46a1d7914de6183cfb1629cecf9ce1f8a82533276b"))
    }

    @Test func theSheetsUploadOpensAndSealsByteForByte() throws {
        let app = try CryptoBox.keyPair(secretKey: Self.appSecret)
        let server = try CryptoBox.keyPair(secretKey: Self.serverSecret)
        #expect(try CryptoBox.open(Self.sealed, nonce: Self.nonce, from: app.publicKey, to: server.secretKey) == Self.upload)
        #expect(try CryptoBox.seal(Self.upload, nonce: Self.nonce, to: server.publicKey, from: app.secretKey) == Self.sealed)
    }

    @Test func aTamperedOrMisaddressedBoxDoesNotOpen() throws {
        let app = try CryptoBox.keyPair(secretKey: Self.appSecret)
        let server = try CryptoBox.keyPair(secretKey: Self.serverSecret)
        var tampered = Self.sealed
        tampered[20] ^= 1
        #expect(try CryptoBox.open(tampered, nonce: Self.nonce, from: app.publicKey, to: server.secretKey) == nil)
        var otherNonce = Self.nonce
        otherNonce[0] = 99
        #expect(try CryptoBox.open(Self.sealed, nonce: otherNonce, from: app.publicKey, to: server.secretKey) == nil)
        let stranger = try CryptoBox.keyPair(using: SeededRandomSource(seed: 7))
        #expect(try CryptoBox.open(Self.sealed, nonce: Self.nonce, from: app.publicKey, to: stranger.secretKey) == nil)
        #expect(try CryptoBox.open(Array(Self.sealed.prefix(10)), nonce: Self.nonce, from: app.publicKey, to: server.secretKey) == nil)
    }

    @Test func wrongLengthsAreRefusedBeforeLibsodiumSeesThem() throws {
        let server = try CryptoBox.keyPair(secretKey: Self.serverSecret)
        #expect(throws: CryptoBox.Failure.wrongLength("nonce")) {
            try CryptoBox.open(Self.sealed, nonce: Array(Self.nonce.prefix(23)), from: server.publicKey, to: server.secretKey)
        }
        #expect(throws: CryptoBox.Failure.wrongLength("public key")) {
            try CryptoBox.seal([1], nonce: Self.nonce, to: Array(server.publicKey.prefix(16)), from: server.secretKey)
        }
        #expect(throws: CryptoBox.Failure.wrongLength("secret key")) { try CryptoBox.keyPair(secretKey: [1, 2, 3]) }
    }

    @Test func keyPairsFromTheRandomSourceDiffer() throws {
        let random = SeededRandomSource(seed: 1)
        #expect(try CryptoBox.keyPair(using: random) != CryptoBox.keyPair(using: random))
    }
}
