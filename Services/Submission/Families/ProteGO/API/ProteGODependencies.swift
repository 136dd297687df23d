import Foundation
import SubmissionCore
import SubmissionDomain

/// What verification answered when a PIN was redeemed.
public enum PINRedemption: Sendable, Equatable {
    /// The PIN was valid and is spent; the upload token (a TAN, 30 minutes) is the app's access token.
    case redeemed(uploadToken: String)
    /// Unknown, used or expired.
    case unknown
    /// Failed redemptions are throttled for now (verification's global bucket): not a statement about this PIN.
    case throttled
}

/// Redeems PINs at the verification service (`POST /version/v1/codes/redeem`, kind `PROTEGO`). Throws when
/// verification gives no usable answer.
public protocol ProteGOCodeRedeemer: Sendable {
    func redeem(pin: String) async throws -> PINRedemption
}

/// The service's shared key intake: the two-phase upload every family's keys go through (`KeyIntake`). It spends
/// only TANs of `lane`'s family and region, and answers any other as an unknown one.
public protocol ProteGOKeyIntake: Sendable {
    func upload(_ keys: [DiagnosisKey], tan: String, lane: UploadLane, now: Date) async -> UploadOutcome
}
