import ExposureCore
import Foundation
import Testing
@testable import VerificationDomain

/// The forms of the other app families' one-time codes, and that they are drawn uniformly from the whole space.
@Suite struct OneTimeCodeKindTests {
    /// A source that answers the given numbers, then repeats the last.
    final class Scripted: RandomSource, @unchecked Sendable {
        private let lock = NSLock()
        private var values: [UInt64]
        init(_ values: [UInt64]) { self.values = values }
        func uint64() -> UInt64 { lock.withLock { values.count > 1 ? values.removeFirst() : values[0] } }
        func bytes(count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: uint64()) } }
    }

    @Test func covidShieldCodesAreEightDigitsZeroPadded() {
        #expect(OneTimeCodeKind.covidShield.generate(using: Scripted([42])) == "00000042")
        #expect(OneTimeCodeKind.covidShield.generate(using: Scripted([0])) == "00000000")
        #expect(OneTimeCodeKind.covidShield.generate(using: Scripted([99_999_999])) == "99999999")
        let random = SeededRandomSource(seed: 17)
        for _ in 0..<1000 {
            let code = OneTimeCodeKind.covidShield.generate(using: random)
            #expect(code.count == 8 && code.allSatisfy(\.isASCIIDigit), "\(code)")
            #expect(OneTimeCodeKind.covidShield.normalized(code) == code)
        }
    }

    /// Acceptance test 5 of the ProteGO sheet: `^[0-9A-Z]{6}$`, a letter and a digit, 1000 distinct.
    @Test func proteGOPINsAreSixCharactersWithALetterAndADigit() {
        let random = SeededRandomSource(seed: 23)
        let pins = (0..<1000).map { _ in OneTimeCodeKind.proteGO.generate(using: random) }
        #expect(Set(pins).count == 1000)
        for pin in pins {
            #expect(pin.range(of: "^[0-9A-Z]{6}$", options: .regularExpression) != nil, "\(pin)")
            #expect(pin.contains(where: \.isASCIIDigit) && pin.contains(where: \.isUppercase), "\(pin)")
        }
        // A draw without a letter (all digits: values below 10 pick digits) is drawn again.
        #expect(OneTimeCodeKind.proteGO.generate(using: Scripted([1, 2, 3, 4, 5, 6, 10, 11, 12, 13, 14, 7])) == "ABCDE7")
    }

    /// Each position of each kind is uniform over its alphabet: a chi-square test over 20,000 codes, against the
    /// 99.9 % quantile (deterministic: a fixed seed).
    @Test(arguments: OneTimeCodeKind.allCases)
    func everyPositionIsUniform(kind: OneTimeCodeKind) {
        let random = SeededRandomSource(seed: 99)
        let draws = 20_000
        var counts = Array(repeating: [Character: Int](), count: kind.length)
        for _ in 0..<draws {
            for (position, character) in kind.generate(using: random).enumerated() { counts[position][character, default: 0] += 1 }
        }
        // Rejecting PINs without a letter or a digit skews ProteGO's positions a little toward the rarer class
        // (digits); the test's expectation is the exact distribution of valid PINs.
        let alphabet = kind.alphabet
        for position in 0..<kind.length {
            var chiSquare = 0.0
            for character in alphabet {
                let expected = Double(draws) * Self.probability(of: character, kind: kind)
                let observed = Double(counts[position][character] ?? 0)
                chiSquare += (observed - expected) * (observed - expected) / expected
            }
            // 99.9 % quantiles of chi-square with 9 and 35 degrees of freedom.
            let limit = alphabet.count == 10 ? 27.88 : 66.62
            #expect(chiSquare < limit, "\(kind) position \(position): chi-square \(chiSquare)")
        }
    }

    /// The chance of `character` at one position of a valid code of `kind`.
    static func probability(of character: Character, kind: OneTimeCodeKind) -> Double {
        guard kind == .proteGO else { return 0.1 }
        // Valid PINs with a given digit at a position: all 36^5 rests but those of digits only (no letter).
        // With a given letter: all rests but those of letters only (no digit).
        let valid = Double(kind.spaceSize)
        let rests = 60_466_176.0  // 36^5
        return character.isASCIIDigit ? (rests - 100_000) / valid : (rests - 11_881_376) / valid  // 10^5, 26^5
    }

    @Test func appInputIsComparedUpperCasedForProteGOOnly() {
        #expect(OneTimeCodeKind.proteGO.normalized("k7qx2m") == "K7QX2M")
        #expect(OneTimeCodeKind.proteGO.normalized("K7QX2M") == "K7QX2M")
        for bad in ["", "K7QX2", "K7QX2MM", "KKQXMM", "777222", "K7QX2-", "K7QX2É", " K7QX2M", "K7QX2M\n"] {
            #expect(OneTimeCodeKind.proteGO.normalized(bad) == nil, "\(bad)")
        }
        #expect(OneTimeCodeKind.covidShield.normalized("01234567") == "01234567")
        for bad in ["", "1234567", "123456789", "1234567a", "١٢٣٤٥٦٧٨", " 12345678", "12345678\n"] {
            #expect(OneTimeCodeKind.covidShield.normalized(bad) == nil, "\(bad)")
        }
    }

    @Test func theKindIsPartOfWhatIsHashed() {
        #expect(OneTimeCodeKind.covidShield.hashInput("12345678") == "COVIDSHIELD:12345678")
        #expect(OneTimeCodeKind.proteGO.hashInput("K7QX2M") == "PROTEGO:K7QX2M")
    }

    @Test func proteGOBatchRules() {
        #expect(ProteGOBatch.isValidNumberOfCodes(1) && ProteGOBatch.isValidNumberOfCodes(1000))
        #expect(!ProteGOBatch.isValidNumberOfCodes(0) && !ProteGOBatch.isValidNumberOfCodes(1001) && !ProteGOBatch.isValidNumberOfCodes(-1))
        for valid in [1800, 3600, 7200, 10800, 82800, 86400] { #expect(ProteGOBatch.isValidDuration(valid), "\(valid)") }
        for invalid in [0, -3600, 900, 1801, 2700, 5400, 90000, 86401] { #expect(!ProteGOBatch.isValidDuration(invalid), "\(invalid)") }
    }

    @Test func issuerTokensAndNames() {
        let random = SeededRandomSource(seed: 4)
        let token = IssuerToken.generate(using: random)
        #expect(IssuerToken.isWellFormed(token))
        #expect(token.hasPrefix("iss_") && token.count == 47)
        #expect(IssuerToken.generate(using: random) != token)
        #expect(!IssuerToken.isWellFormed(String(token.dropLast())) && !IssuerToken.isWellFormed("lab_" + token.dropFirst(4)))
        #expect(IssuerToken.hash(token) == SecretHash.sha256Hex(token))
        #expect(CodeIssuer.isValidName("ontario-ha.1") && !CodeIssuer.isValidName("") && !CodeIssuer.isValidName("a b"))
        #expect(OneTimeCodeRegions.isValid("ON") && OneTimeCodeRegions.isValid("PL") && !OneTimeCodeRegions.isValid("O N"))
        #expect(!OneTimeCodeRegions.isValid("") && !OneTimeCodeRegions.isValid(String(repeating: "A", count: 17)))
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
