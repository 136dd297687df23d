import Foundation
import Logging
import Synchronization

/// A downstream request with two paths: a batch path, and a single path that answers one item per request.
///
/// Our services add batch forms of their internal lookups (`/api/v1/app/results`, `/version/v1/tans/verify`).
/// During a rolling upgrade the service on the other side may predate its batch path and answer 404. The items
/// then go on the single path, one request each and all at once, and the batch path is tried again once
/// `retryAfter` has passed, since the other side may have been upgraded meanwhile.
public final class BatchPathFallback<Item: Sendable, Answer: Sendable>: Sendable {
    /// What the batch path said.
    public enum BatchAnswer: Sendable {
        /// One answer per item, in order.
        case answers([Answer])
        /// The other side has no batch path (404).
        case pathMissing
    }

    public let retryAfter: Duration
    /// When the batch path last answered 404, if it did since it last worked.
    private let missingSince = Mutex<Date?>(nil)
    private let clock: any WallClock
    private let batch: @Sendable ([Item]) async throws -> BatchAnswer
    private let single: @Sendable (Item) async throws -> Answer
    private let logger: Logger
    private let noticeWhenMissing: Logger.Message

    /// - Parameters:
    ///   - noticeWhenMissing: logged when the batch path answers 404, naming the path and the fallback.
    ///   - batch: one request on the batch path.
    ///   - single: one request on the single path.
    public init(
        retryAfter: Duration, clock: any WallClock = SystemClock(), logger: Logger, noticeWhenMissing: Logger.Message,
        batch: @escaping @Sendable ([Item]) async throws -> BatchAnswer,
        single: @escaping @Sendable (Item) async throws -> Answer
    ) {
        self.retryAfter = retryAfter
        self.clock = clock
        self.logger = logger
        self.noticeWhenMissing = noticeWhenMissing
        self.batch = batch
        self.single = single
    }

    /// The answers for `items`, in order: from one batch request while the batch path may exist, otherwise from
    /// one single request per item.
    public func answers(for items: [Item]) async throws -> [Answer] {
        if batchPathMayExist {
            switch try await batch(items) {
            case .answers(let answers):
                missingSince.withLock { $0 = nil }
                return answers
            case .pathMissing:
                logger.notice(noticeWhenMissing, metadata: ["retry": "\(retryAfter)"])
                let now = clock.now()
                missingSince.withLock { $0 = now }
            }
        }
        return try await items.concurrentMap(single)
    }

    /// False while a 404 for the batch path is younger than `retryAfter`.
    private var batchPathMayExist: Bool {
        let now = clock.now()
        return missingSince.withLock { since in since.map { now.timeIntervalSince($0) >= retryAfter.seconds } ?? true }
    }
}
