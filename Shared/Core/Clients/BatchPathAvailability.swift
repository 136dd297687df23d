import Synchronization

/// Whether a downstream service is worth asking on its batch path.
///
/// Our services add batch forms of their internal lookups (`/api/v1/app/results`, `/version/v1/tans/verify`).
/// During a rolling upgrade the service on the other side may predate its batch path and answer 404; the caller
/// then uses the single path, and tries the batch path again once `retryAfter` has passed, since the other side
/// may have been upgraded meanwhile.
public final class BatchPathAvailability: Sendable {
    public let retryAfter: Duration
    /// When the batch path last answered 404, if it did since it last worked.
    private let missingSince = Mutex<ContinuousClock.Instant?>(nil)

    public init(retryAfter: Duration) {
        self.retryAfter = retryAfter
    }

    /// False while a 404 for the batch path is younger than `retryAfter`.
    public var mayExist: Bool {
        missingSince.withLock { since in since.map { ContinuousClock.now - $0 >= retryAfter } ?? true }
    }

    /// The batch path answered: ask it from now on.
    public func found() {
        missingSince.withLock { $0 = nil }
    }

    /// The batch path answered 404: use the single path for `retryAfter`.
    public func missing() {
        missingSince.withLock { $0 = .now }
    }
}
