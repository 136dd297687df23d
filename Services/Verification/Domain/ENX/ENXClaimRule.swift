import ExposureRules
import Foundation

/// What `/api/verify` decides about a code found in the caller's authority, in the reference's order (docs/enx.md,
/// 2.1): the form presented has expired (`now` at or past its end: 400 `code_expired`, checked before the claim),
/// the code was claimed (400 `code_invalid`, as an unknown code), its type is not among those the phone accepts (412
/// `unsupported_test_type`, and the code stays usable, so the phone may ask again with a wider `accept`). Otherwise
/// the code is claimed, in the same transaction that stores the verification token.
public enum ENXClaimRule {
    /// Which of a code's two forms the phone sent: the short one typed, or the long one of the link.
    public enum Form: Sendable, Equatable {
        case short
        case long
    }

    /// A stored code as the rule needs it.
    public struct StoredCode: Sendable, Equatable {
        public let testType: ENXReportType
        /// Unix seconds: the end of the short form and of the long one.
        public let expiresAt: Int64
        public let longExpiresAt: Int64
        public let claimed: Bool

        public init(testType: ENXReportType, expiresAt: Int64, longExpiresAt: Int64, claimed: Bool) {
            self.testType = testType
            self.expiresAt = expiresAt
            self.longExpiresAt = longExpiresAt
            self.claimed = claimed
        }
    }

    /// Nil when the code may be claimed now; the refusal otherwise.
    public static func refusal(of code: StoredCode, presented form: Form, accepted: Set<ENXReportType>, now: Int64) -> ENXRefusal? {
        let end = form == .short ? code.expiresAt : code.longExpiresAt
        if now >= end { return ENXRefusal(400, ENXRefusal.codeExpired, "verification code expired") }
        if code.claimed { return invalidCode }
        if !accepted.contains(code.testType) {
            return ENXRefusal(412, ENXRefusal.unsupportedTestType, "verification code has unsupported test type")
        }
        return nil
    }

    /// An unknown code and a claimed one are answered alike.
    public static let invalidCode = ENXRefusal(400, ENXRefusal.codeInvalid, "verification code invalid")

    /// The phone's `ekeyhmac` of `/api/certificate`: base64 (any of its forms) of exactly 32 bytes, else 400
    /// `hmac_invalid`, checked before the token is spent so that a phone's mistake does not cost it the token.
    public static func keyHMAC(_ text: String) throws(ENXRefusal) -> [UInt8] {
        guard let bytes = Data(lenientBase64: text), bytes.count == 32 else {
            throw ENXRefusal(400, ENXRefusal.hmacInvalid, "ekeyhmac is not 32 bytes of base64")
        }
        return Array(bytes)
    }
}
