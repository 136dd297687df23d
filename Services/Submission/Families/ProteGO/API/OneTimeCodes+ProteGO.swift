import ExposureCore
import SubmissionCore

/// The ProteGO adapter's PIN redemption, through the one client of verification's one-time codes: a redeemed PIN
/// answers its upload credential.
extension OneTimeCodes: ProteGOCodeRedeemer {
    public func redeem(pin: String) async throws -> PINRedemption {
        switch try await redeem(.PROTEGO, code: pin) {
        case .redeemed(_, _, let uploadToken?): .redeemed(uploadToken: uploadToken)
        // A PROTEGO redemption always mints the upload credential; an answer without one is of no use.
        case .redeemed: throw call.unfitting()
        case .unknown: .unknown
        case .throttled: .throttled
        }
    }
}
