import Logging
import Synchronization
import Testing
@testable import ExposureCore

/// `BatchPathFallback` on its own: which path a batch takes, and when the batch path is asked again.
struct BatchPathFallbackTests {
    /// A downstream service whose batch path can be switched off, counting the requests on each path.
    final class Downstream: Sendable {
        let hasBatchPath: Mutex<Bool>
        let batchRequests = Mutex<[[Int]]>([])
        let singleRequests = Mutex<[Int]>([])
        let clock = ManualClock()

        init(hasBatchPath: Bool) {
            self.hasBatchPath = Mutex(hasBatchPath)
        }

        func paths(retryAfter: Duration) -> BatchPathFallback<Int, String> {
            BatchPathFallback(
                retryAfter: retryAfter, clock: clock, logger: Logger(label: "test"), noticeWhenMissing: "no batch path",
                batch: { items in
                    self.batchRequests.withLock { $0.append(items) }
                    guard self.hasBatchPath.withLock({ $0 }) else { return .pathMissing }
                    return .answers(items.map { "batch \($0)" })
                },
                single: { item in
                    self.singleRequests.withLock { $0.append(item) }
                    return "single \(item)"
                }
            )
        }
    }

    @Test
    func whileTheBatchPathAnswersEveryBatchIsOneRequest() async throws {
        let downstream = Downstream(hasBatchPath: true)
        let paths = downstream.paths(retryAfter: .seconds(3600))
        #expect(try await paths.answers(for: [1, 2, 3]) == ["batch 1", "batch 2", "batch 3"])
        #expect(try await paths.answers(for: [4]) == ["batch 4"])
        #expect(downstream.batchRequests.withLock { $0 } == [[1, 2, 3], [4]])
        #expect(downstream.singleRequests.withLock { $0 }.isEmpty)
    }

    @Test
    func withoutABatchPathItemsGoOneByOneInOrderAndTheBatchPathRestsForRetryAfter() async throws {
        let downstream = Downstream(hasBatchPath: false)
        let paths = downstream.paths(retryAfter: .seconds(3600))
        #expect(try await paths.answers(for: [5, 6, 7]) == ["single 5", "single 6", "single 7"])
        #expect(try await paths.answers(for: [8]) == ["single 8"])
        // The 404 was asked once; the second batch did not try the batch path again.
        #expect(downstream.batchRequests.withLock { $0 } == [[5, 6, 7]])
        #expect(downstream.singleRequests.withLock { $0 }.sorted() == [5, 6, 7, 8])
    }

    @Test
    func onceRetryAfterHasPassedTheBatchPathIsAskedAgainAndKeptWhenItAnswers() async throws {
        let downstream = Downstream(hasBatchPath: false)
        let paths = downstream.paths(retryAfter: .seconds(60))
        #expect(try await paths.answers(for: [1]) == ["single 1"])
        downstream.hasBatchPath.withLock { $0 = true }
        downstream.clock.advance(by: 59)
        #expect(try await paths.answers(for: [2]) == ["single 2"])
        downstream.clock.advance(by: 1)
        #expect(try await paths.answers(for: [3, 4]) == ["batch 3", "batch 4"])
        #expect(try await paths.answers(for: [5, 6]) == ["batch 5", "batch 6"])
        #expect(downstream.batchRequests.withLock { $0 } == [[1], [3, 4], [5, 6]])
        #expect(downstream.singleRequests.withLock { $0 } == [1, 2])
    }

    @Test
    func aFailedBatchRequestFailsTheBatchWithoutFallingBack() async throws {
        struct Down: Error {}
        let paths = BatchPathFallback<Int, Int>(
            retryAfter: .seconds(3600), logger: Logger(label: "test"), noticeWhenMissing: "no batch path",
            batch: { _ in throw Down() },
            single: { item in Issue.record("asked item \(item) alone"); return item }
        )
        await #expect(throws: Down.self) { try await paths.answers(for: [1, 2]) }
    }
}
