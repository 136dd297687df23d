import Foundation

/// How long results are kept: after `redeemAfter` a result can no longer be used to get a TAN (it becomes
/// redeemed); after `deleteAfter` the row is gone.
public struct RetentionPolicy: Sendable, Equatable {
    public var redeemAfter: Duration
    public var deleteAfter: Duration

    public init(redeemAfter: Duration = .seconds(21 * 86400), deleteAfter: Duration = .seconds(60 * 86400)) {
        self.redeemAfter = redeemAfter
        self.deleteAfter = deleteAfter
    }

    /// Results received before this instant become redeemed.
    public func redeemCutoff(now: Date) -> Int64 { Int64(now.timeIntervalSince1970 - redeemAfter.seconds) }

    /// Results received before this instant are deleted.
    public func deleteCutoff(now: Date) -> Int64 { Int64(now.timeIntervalSince1970 - deleteAfter.seconds) }
}
