import ExposureRules
import Foundation
import Testing
@testable import VerificationDomain

/// Issue #61: what `/api/verify` and `/api/certificate` decide about a stored code and a phone's HMAC, in the
/// reference's order (shared/design/enx.md, 2.1 and 2.2).
@Suite struct ENXClaimRuleTests {
    static let now: Int64 = 1_606_044_000
    static let fresh = ENXClaimRule.StoredCode(testType: .likely, expiresAt: now + 900, longExpiresAt: now + 86400, claimed: false)

    static func answer(_ code: ENXClaimRule.StoredCode, _ form: ENXClaimRule.Form, accept: [String]? = nil, at time: Int64 = now) -> String {
        guard let accepted = ENXReportType.accepted(by: accept) else { return "400 invalid_test_type" }
        return ENXClaimRule.refusal(of: code, presented: form, accepted: accepted, now: time).map { "\($0.status) \($0.errorCode)" } ?? "claim"
    }

    @Test func aCodeIsClaimedOnceWithinItsFormsLifetime() {
        #expect(Self.answer(Self.fresh, .short) == "claim")
        #expect(Self.answer(Self.fresh, .long, at: Self.now + 3600) == "claim")
        // The short form ends at its own time (at, not after), the long one later.
        #expect(Self.answer(Self.fresh, .short, at: Self.now + 900) == "400 code_expired")
        #expect(Self.answer(Self.fresh, .long, at: Self.now + 86400) == "400 code_expired")
        let claimed = ENXClaimRule.StoredCode(testType: .likely, expiresAt: Self.now + 900, longExpiresAt: Self.now + 86400, claimed: true)
        #expect(Self.answer(claimed, .short) == "400 code_invalid")
        // Expiry is checked before the claim.
        #expect(Self.answer(claimed, .short, at: Self.now + 901) == "400 code_expired")
        #expect(ENXClaimRule.invalidCode.errorCode == "code_invalid" && ENXClaimRule.invalidCode.status == 400)
    }

    @Test func aTypeThePhoneDoesNotAcceptIs412() {
        #expect(Self.answer(Self.fresh, .short, accept: ["confirmed"]) == "412 unsupported_test_type")
        #expect(Self.answer(Self.fresh, .short, accept: ["likely"]) == "claim")
        #expect(Self.answer(Self.fresh, .short, accept: ["negative"]) == "claim")
        #expect(Self.answer(Self.fresh, .short, accept: ["positive"]) == "400 invalid_test_type")
        let userReport = ENXClaimRule.StoredCode(testType: .userReport, expiresAt: Self.now + 900, longExpiresAt: Self.now + 900, claimed: false)
        #expect(Self.answer(userReport, .short, accept: ["negative"]) == "412 unsupported_test_type")
        #expect(Self.answer(userReport, .short, accept: ["user-report"]) == "claim")
    }

    @Test func theKeyHMACIs32BytesOfBase64() throws {
        let mac = Data((0..<32).map { UInt8($0 * 7 & 0xff) })
        for text in [mac.base64EncodedString(), Array(mac).base64URLString] {
            #expect(try ENXClaimRule.keyHMAC(text) == Array(mac), "\(text)")
        }
        for text in [Data(mac.prefix(16)).base64EncodedString(), "not base64!", "", Data(mac + [0]).base64EncodedString()] {
            #expect(throws: ENXRefusal(400, ENXRefusal.hmacInvalid, "ekeyhmac is not 32 bytes of base64"), "\(text)") { try ENXClaimRule.keyHMAC(text) }
        }
    }
}
