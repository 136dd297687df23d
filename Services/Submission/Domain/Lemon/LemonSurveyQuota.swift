import Crypto
import ExposureRules
import Foundation

/// How many surveys one device may send per day (`LEMON_SURVEYS_PER_DEVICE_DAY`), counted without linking a survey to
/// its device: the count is kept under `HMAC-SHA256(key, device id 0x00 day)`, in a table of its own that holds no
/// device id and no survey id (`lemon_survey_quota`), the key derived by HKDF-SHA256 from `LEMON_ENCRYPTION_KEY` (info
/// `lemon-survey-quota`), outside the database. Rows of past days are deleted.
public struct LemonSurveyQuota: Sendable {
    static let info = Array("lemon-survey-quota".utf8)

    /// Surveys a device may send in one day (UTC).
    public let limit: Int
    let key: SymmetricKey

    public init(serverKeyDER: Data, limit: Int) {
        precondition(limit >= 1)
        self.limit = limit
        key = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: serverKeyDER), info: Self.info, outputByteCount: 32)
    }

    /// The counter's name for `deviceID` on `day` (`YYYY-MM-DD`): hex of the HMAC.
    public func counter(deviceID: String, day: String) -> String {
        let message = Array(deviceID.utf8) + [0] + Array(day.utf8)
        return Array(HMAC<SHA256>.authenticationCode(for: message, using: key)).hexString
    }
}
