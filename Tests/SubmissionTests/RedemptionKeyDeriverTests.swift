import ExposureCore
import Foundation
@testable import SubmissionDomain
import Testing
@testable import Submission
@testable import SubmissionCore

/// `RedemptionKeyDeriver`: one submission, one key; any other submission, TAN or secret, another.
@Suite struct RedemptionKeyDeriverTests {
    static let tan = "3b1e5a1c-8f0a-4c1e-9d2b-6a7f0e1d2c3b"
    static let deriver = RedemptionKeyDeriver(secret: Array("a secret of 32 bytes, or so long".utf8))

    static func key(_ byte: UInt8) -> DiagnosisKey {
        DiagnosisKey(
            keyData: Data(repeating: byte, count: 16), rollingStartIntervalNumber: 2_800_000 + Int32(byte) * 144,
            rollingPeriod: 144, transmissionRiskLevel: 6, daysSinceOnsetOfSymptoms: 2, reportType: 1,
            originCountry: "DE", visitedCountries: ["FR", "NL"], consentToFederation: true, submissionType: 0
        )
    }

    /// A known answer, computed apart from this code (Python's `hmac` over the encoding that
    /// `RedemptionKeyDeriver` documents), so that a change of the encoding cannot pass unnoticed: a deployed
    /// submission service and a new one must derive the same key for a retry that spans an upgrade.
    ///
    ///     import hmac, hashlib, struct
    ///     lp = lambda b: struct.pack(">I", len(b)) + b
    ///     tan = b"3b1e5a1c-8f0a-4c1e-9d2b-6a7f0e1d2c3b"
    ///     enc = lp(tan) + struct.pack(">I", 3)
    ///     for n in (1, 2, 3):
    ///         enc += lp(bytes([n]) * 16) + b"".join(struct.pack(">i", f) for f in (2_800_000 + n * 144, 144, 6, 2, 1, 0))
    ///         enc += lp(b"DE") + lp(b"FR,NL") + b"\x01"
    ///     hmac.new(b"a secret of 32 bytes, or so long", enc, hashlib.sha256).hexdigest()[:32]
    @Test
    func aKnownAnswerComputedIndependently() {
        #expect(Self.deriver.key(for: Self.tan, keys: (1...3).map(Self.key)) == "a3bd8b3f4cc63d86257ca322b135665d")
    }

    @Test
    func theSameSubmissionGivesTheSameKeyInAnyOrder() {
        let keys = (1...3).map(Self.key)
        let derived = Self.deriver.key(for: Self.tan, keys: keys)
        #expect(Codes.isRedemptionKey(derived))
        #expect(Self.deriver.key(for: Self.tan, keys: keys.reversed()) == derived)
    }

    @Test
    func anyChangeToTheTANOrAKeyGivesAnotherKey() {
        let keys = (1...3).map(Self.key)
        let derived = Self.deriver.key(for: Self.tan, keys: keys)
        let changes: [(String, (inout DiagnosisKey) -> Void)] = [
            ("keyData", { $0.keyData[0] ^= 1 }),
            ("rollingStartIntervalNumber", { $0.rollingStartIntervalNumber += 144 }),
            ("rollingPeriod", { $0.rollingPeriod = 143 }),
            ("transmissionRiskLevel", { $0.transmissionRiskLevel = 5 }),
            ("daysSinceOnsetOfSymptoms", { $0.daysSinceOnsetOfSymptoms = 3 }),
            ("reportType", { $0.reportType = 2 }),
            ("originCountry", { $0.originCountry = "AT" }),
            ("visitedCountries", { $0.visitedCountries = ["FR"] }),
            ("consentToFederation", { $0.consentToFederation = false }),
            ("submissionType", { $0.submissionType = 1 }),
        ]
        for (field, change) in changes {
            var changed = keys
            change(&changed[1])
            #expect(Self.deriver.key(for: Self.tan, keys: changed) != derived, "\(field)")
        }
        #expect(Self.deriver.key(for: Self.tan, keys: Array(keys.prefix(2))) != derived)
        #expect(Self.deriver.key(for: "4b1e5a1c-8f0a-4c1e-9d2b-6a7f0e1d2c3b", keys: keys) != derived)
        // Field boundaries are part of the encoding: moving a character between two countries changes the key.
        var shifted = keys
        shifted[1].originCountry = "DEF"
        shifted[1].visitedCountries = ["R", "NL"]
        #expect(Self.deriver.key(for: Self.tan, keys: shifted) != derived)
    }

    @Test
    func anotherSecretGivesAnotherKey() {
        let keys = (1...3).map(Self.key)
        let other = RedemptionKeyDeriver(secret: Array("another secret of 32 bytes, too.".utf8))
        #expect(other.key(for: Self.tan, keys: keys) != Self.deriver.key(for: Self.tan, keys: keys))
    }
}
