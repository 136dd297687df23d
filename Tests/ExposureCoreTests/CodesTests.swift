import ExposureCore
import Foundation
import Testing

@Suite struct CodesTests {
    /// The contract's vectors for the teleTAN check character.
    @Test func hexIsLowerCaseTwoDigitsAByte() {
        #expect([0x00, 0x0F, 0xA5, 0xFF].hexString == "000fa5ff")
        var bytes = Array("k=".utf8)
        bytes.appendHex(of: [0x01, 0xAB] as [UInt8])
        #expect(String(decoding: bytes, as: UTF8.self) == "k=01ab")
    }

    @Test(arguments: [("FE9A5MAK6", "C"), ("WPHSATMHD", "4"), ("FE9A5MAK9", "H"), ("FE9A5MAKW", "G")])
    func teleTANCheckCharacterVectors(body: String, check: String) {
        #expect(String(Codes.teleTANCheckCharacter(for: body)) == check)
        #expect(Codes.isValidTeleTAN(body + check))
    }

    @Test func teleTANWithTypoOrForbiddenCharacterIsInvalid() {
        #expect(!Codes.isValidTeleTAN("FE9A5MAK6D"))  // wrong check character
        #expect(!Codes.isValidTeleTAN("FE9A5MAK6"))  // too short
        #expect(!Codes.isValidTeleTAN("FE9A5MAKOC"))  // O is not in the alphabet
        #expect(!Codes.isValidTeleTAN("fe9a5mak6c"))  // lower case
    }

    @Test func generatedTeleTANsAreValidAndUseTheAlphabet() {
        let random = SeededRandomSource(seed: 7)
        for _ in 0..<500 {
            let tan = Codes.teleTAN(using: random)
            #expect(tan.count == 10)
            #expect(Codes.isValidTeleTAN(tan))
        }
    }

    @Test func redemptionKeysAre32LowerCaseHexCharacters() {
        let random = SeededRandomSource(seed: 3)
        let keys = (0..<100).map { _ in Codes.redemptionKey(using: random) }
        #expect(keys.allSatisfy(Codes.isRedemptionKey))
        #expect(Set(keys).count == 100)
        for bad in ["", String(repeating: "a", count: 31), String(repeating: "a", count: 33), String(repeating: "A", count: 32),
                    String(repeating: "g", count: 32), String(repeating: "é", count: 16)] {
            #expect(!Codes.isRedemptionKey(bad), "\(bad)")
        }
    }

    @Test func uuidV4HasVersionAndVariant() {
        let random = SeededRandomSource(seed: 1)
        var seen = Set<String>()
        for _ in 0..<1000 {
            let uuid = Codes.uuidV4(using: random)
            #expect(Codes.isUUIDv4(uuid))
            seen.insert(uuid)
        }
        #expect(seen.count == 1000)
        #expect(Codes.isUUIDv4(Codes.uuidV4(using: SystemRandomSource())))
        #expect(!Codes.isUUIDv4("3B1E5A1C-8F0A-4C1E-9D2B-6A7F0E1D2C3B"))
        #expect(!Codes.isUUIDv4("3b1e5a1c-8f0a-3c1e-9d2b-6a7f0e1d2c3b"))  // version 3
        #expect(!Codes.isUUIDv4("3b1e5a1c-8f0a-4c1e-7d2b-6a7f0e1d2c3b"))  // wrong variant
    }

    @Test func hashedGUIDs() {
        let hash = SecretHash.sha256Hex("some-guid")
        #expect(hash.count == 64)
        #expect(Codes.isHashedGUID(hash))
        #expect(!Codes.isHashedGUID("x" + hash.dropFirst()))
        #expect(Codes.isHashedGUID("x" + hash.dropFirst(), allowDobPrefix: true))
        #expect(Codes.isHashedGUID("X" + hash.dropFirst(), allowDobPrefix: true))
        #expect(!Codes.isHashedGUID(String(hash.dropLast())))
        #expect(!Codes.isHashedGUID(String(hash.dropLast()) + "g"))
    }

    @Test func sha256HexMatchesKnownVector() {
        #expect(SecretHash.sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Array(hex: "00ff10") == [0, 255, 16])
        #expect(Array(hex: "0g") == nil)
    }

    @Test func constantTimeComparison() {
        #expect(SecretHash.constantTimeEquals("abc", "abc"))
        #expect(!SecretHash.constantTimeEquals("abc", "abd"))
        #expect(!SecretHash.constantTimeEquals("abc", "abcd"))
        #expect(SecretHash.constantTimeEquals([UInt8](), [UInt8]()))
    }

    @Test func uniformDrawsStayInRangeAndCoverIt() {
        let random = SeededRandomSource(seed: 3)
        var counts = [Int](repeating: 0, count: 31)
        for _ in 0..<31_000 { counts[Int(random.uniform(below: 31))] += 1 }
        #expect(counts.allSatisfy { $0 > 800 && $0 < 1200 })
    }

    @Test func systemRandomBytesHaveTheLengthAskedForAndLookUniform() {
        let random = SystemRandomSource()
        for count in [0, 1, 7, 8, 9, 200] { #expect(random.bytes(count: count).count == count) }
        #expect(random.bytes(count: 32) != random.bytes(count: 32))
        // 4096 uniform bytes: the mean is 127.5 with a standard error of about 1.2; nearly every value appears.
        let bytes = random.bytes(count: 4096)
        let mean = Double(bytes.reduce(0) { $0 + Int($1) }) / Double(bytes.count)
        #expect(abs(mean - 127.5) < 10)
        #expect(Set(bytes).count > 240)
    }
}
