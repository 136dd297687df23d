import Foundation
import Logging

/// Items that one service asks of another in batches: at most `slots` requests out at once (one spare more while
/// they are all slower than the policy's `stalledAfter`), and the items that queue behind them in one request on the
/// batch path (`RequestBatcher`); item by item on the single path while the other service lacks the batch path
/// (`BatchPathFallback`, during a rolling upgrade).
///
/// The verification service's lookups at test-result (`TestResultLookup`) are one of these: what differs between
/// users is only how one request of each path is sent and read. The submission service's TAN reservations
/// (`TANReservations`) batch with `RequestBatcher` alone: their paths have no single-item form to fall back on.
public struct BatchedDownstream<Item: Sendable, Answer: Sendable>: Sendable {
    private let batcher: RequestBatcher<Item, Answer>

    /// - Parameters:
    ///   - noticeWhenMissing: logged when the batch path answers 404, naming the path and the fallback.
    ///   - batch: one request on the batch path.
    ///   - single: one request on the single path.
    ///   - spareTaken: called when a spare request goes out (a metric of the other service's stalls).
    ///   - batchSent: called with the number of items of each request that goes out (a metric of the mean batch).
    public init(
        slots: Int, maxBatch: Int, policy: DownstreamPolicy, batchPathRetry: Duration, clock: any WallClock, logger: Logger,
        noticeWhenMissing: Logger.Message,
        batch: @escaping @Sendable ([Item]) async throws -> BatchPathFallback<Item, Answer>.BatchAnswer,
        single: @escaping @Sendable (Item) async throws -> Answer,
        spareTaken: @escaping @Sendable () -> Void = {},
        batchSent: @escaping @Sendable (_ items: Int) -> Void = { _ in }
    ) {
        let paths = BatchPathFallback<Item, Answer>(
            retryAfter: batchPathRetry, clock: clock, logger: logger, noticeWhenMissing: noticeWhenMissing, batch: batch, single: single
        )
        batcher = RequestBatcher(slots: slots, maxBatch: maxBatch, spareAfter: policy.stalledAfter, spareTaken: spareTaken) { items in
            batchSent(items.count)
            return try await paths.answers(for: items)
        }
    }

    /// The other service's answer for `item`, from the request its batch went in.
    public func answer(for item: Item) async throws -> Answer {
        try await batcher.value(for: item)
    }
}
