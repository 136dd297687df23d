import Foundation
import SubmissionDomain

/// A device as authentication reads it.
struct LemonDeviceRecord: Sendable {
    let id: String
    let publicKey: Data
    let active: Bool
    let lockout: LemonLockout
}
