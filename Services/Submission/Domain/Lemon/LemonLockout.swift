import ExposureRules
import Foundation

/// The seed's lockout: three failed authentications of an AppId lock it for ten minutes. Every attempt while it
/// is locked is refused and does not extend the lock (the seed leaves extension open; not extending bounds how long
/// a stranger who knows an AppId can keep its device out). The count starts again after the lock.
public struct LemonLockout: Sendable, Equatable {
    public static let maxFailures = 3
    public static let duration: TimeInterval = 600

    /// Failed attempts since the last success or lock.
    public var failures: Int
    /// Until when the AppId is locked (epoch seconds), if it is.
    public var lockedUntil: Int64?

    public init(failures: Int, lockedUntil: Int64?) {
        self.failures = failures
        self.lockedUntil = lockedUntil
    }

    public func isLocked(now: Date) -> Bool {
        if let lockedUntil { return lockedUntil > now.epochSeconds }
        return false
    }

    /// The state after one more failure outside a lock.
    public func failed(now: Date) -> LemonLockout {
        let count = failures + 1
        if count >= Self.maxFailures {
            return LemonLockout(failures: 0, lockedUntil: now.epochSeconds + Int64(Self.duration))
        }
        return LemonLockout(failures: count, lockedUntil: lockedUntil)
    }
}
