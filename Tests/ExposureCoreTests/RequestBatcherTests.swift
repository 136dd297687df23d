import ExposureTestSupport
import Foundation
import Synchronization
import Testing
@testable import ExposureCore

/// `RequestBatcher` on its own: which keys travel together, and that every caller gets its own answer or error.
struct RequestBatcherTests {
    @Test
    func aLookupThatFindsASlotFreeGoesAloneAndAtOnce() async throws {
        let log = FetchLog()
        let batcher = RequestBatcher<Int, Int>(slots: 2, maxBatch: 10) { keys in
            log.record(keys)
            return keys.map { $0 * 10 }
        }
        #expect(try await batcher.value(for: 1) == 10)
        #expect(try await batcher.value(for: 2) == 20)
        #expect(log.batches == [[1], [2]])
    }

    @Test
    func lookupsThatQueueBehindBusySlotsGoTogetherWhenOneFrees() async throws {
        let log = FetchLog()
        let gate = Gate()
        let batcher = oneSlotBatcherBlockedAtZero(maxBatch: 10, log: log, gate: gate) { keys in keys.map { $0 * 10 } }
        try await queueBehindABlockedLookup(batcher, log: log, gate: gate, keys: 1...5) { key in
            let value = try await batcher.value(for: key)
            #expect(value == key * 10)
        }
        #expect(log.batches.count == 2)
        #expect(log.batches.last.map { Set($0) } == Set(1...5))
    }

    @Test
    func aBatchHoldsAtMostMaxBatchKeys() async throws {
        let log = FetchLog()
        let gate = Gate()
        let batcher = oneSlotBatcherBlockedAtZero(maxBatch: 2, log: log, gate: gate) { keys in keys }
        try await queueBehindABlockedLookup(batcher, log: log, gate: gate, keys: 1...5) { key in
            let value = try await batcher.value(for: key)
            #expect(value == key)
        }
        #expect(log.batches.map(\.count) == [1, 2, 2, 1])
        #expect(Set(log.batches.joined()) == Set(0...5))
    }

    @Test
    func aFailedRequestFailsEveryLookupOfItsBatchAndNoOther() async throws {
        struct Down: Error {}
        let log = FetchLog()
        let gate = Gate()
        let batcher = oneSlotBatcherBlockedAtZero(maxBatch: 10, log: log, gate: gate) { keys in
            if keys.contains(1) { throw Down() }
            return keys
        }
        try await queueBehindABlockedLookup(batcher, log: log, gate: gate, keys: 1...3) { key in
            await #expect(throws: Down.self) { try await batcher.value(for: key) }
        }
        #expect(try await batcher.value(for: 7) == 7)
        #expect(batcher.waitingCount == 0)
    }

    @Test
    func anAnswerOfTheWrongLengthIsAnErrorNotAMixUp() async throws {
        let batcher = RequestBatcher<Int, Int>(slots: 1, maxBatch: 10) { keys in Array(keys.dropLast()) }
        await #expect(throws: RequestBatcher<Int, Int>.AnswerCountMismatch.self) { try await batcher.value(for: 1) }
    }

    @Test
    func cancellingTheLeaderOfASharedBatchDoesNotFailTheOthers() async throws {
        let log = FetchLog()
        let first = Gate()
        let second = Gate()
        let batcher = RequestBatcher<Int, Int>(slots: 1, maxBatch: 10) { keys in
            log.record(keys)
            await (keys == [0] ? first : second).wait()
            try Task.checkCancellation()
            return keys
        }
        let blocker = Task { try await batcher.value(for: 0) }
        try await waitUntil { log.batches.count == 1 }
        let leader = Task { try await batcher.value(for: 1) }
        try await waitUntil { batcher.waitingCount == 1 }
        let follower = Task { try await batcher.value(for: 2) }
        try await waitUntil { batcher.waitingCount == 2 }
        await first.open()
        #expect(try await blocker.value == 0)
        try await waitUntil { log.batches.count == 2 }
        leader.cancel()
        await second.open()
        #expect(try await follower.value == 2)
        #expect(try await leader.value == 1)
    }

    @Test
    func manyConcurrentLookupsEachGetTheirOwnAnswerWithinTheSlots() async throws {
        let inFlight = Atomic<Int>(0)
        let mostInFlight = Atomic<Int>(0)
        let batcher = RequestBatcher<Int, Int>(slots: 3, maxBatch: 16) { keys in
            let now = inFlight.add(1, ordering: .relaxed).newValue
            mostInFlight.max(now, ordering: .relaxed)
            await Task.yield()
            inFlight.subtract(1, ordering: .relaxed)
            return keys.map { -$0 }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for key in 0..<2_000 {
                group.addTask {
                    let value = try await batcher.value(for: key)
                    #expect(value == -key)
                }
            }
            try await group.waitForAll()
        }
        #expect(mostInFlight.load(ordering: .relaxed) <= 3)
        #expect(batcher.waitingCount == 0)
    }

    // MARK: The spare

    /// One slot and a spare after 100 ms; a batch whose first key has a gate waits at it. Each spare sent logs `[-1]`.
    private static func batcherWithASpare(timers: HandDrivenTimers, log: FetchLog, gates: [Int: Gate]) -> RequestBatcher<Int, Int> {
        RequestBatcher(slots: 1, maxBatch: 10, spareAfter: .milliseconds(100), timers: timers, spareTaken: { log.record([-1]) }) { keys in
            log.record(keys)
            if let gate = gates[keys[0]] { await gate.wait() }
            return keys
        }
    }

    @Test
    func lookupsQueuedBehindAStalledRequestTakeTheSpareAtTheLimitAndNoSooner() async throws {
        let timers = HandDrivenTimers()
        let log = FetchLog()
        let stalled = Gate()
        // The spare's batch waits too, so that it is certainly still out when the requests are counted.
        let spareHeld = Gate()
        let batcher = Self.batcherWithASpare(timers: timers, log: log, gates: [0: stalled, 1: spareHeld])
        let first = Task { try await batcher.value(for: 0) }
        try await waitUntil { log.batches.count == 1 }
        let queued = try await Self.queue([1, 2], on: batcher)

        timers.advance(to: 99)
        #expect(batcher.waitingCount == 2)
        #expect(batcher.requestsOut == 1)

        // The stalled request's timer opens the spare; nothing else has to arrive.
        timers.advance(to: 100)
        // Required, not expected: without the spare the awaits below would wait for ever.
        try #require(batcher.waitingCount == 0)
        try await waitUntil { log.batches.count == 3 }
        #expect(batcher.requestsOut == 2)
        await spareHeld.open()
        for (key, task) in zip([1, 2], queued) { #expect(try await task.value == key) }
        #expect(log.batches == [[0], [-1], [1, 2]])

        // While the stalled request is still out, a new lookup finds the spare free and goes at once.
        #expect(try await batcher.value(for: 3) == 3)
        #expect(log.batches == [[0], [-1], [1, 2], [-1], [3]])
        await stalled.open()
        #expect(try await first.value == 0)
        #expect(batcher.requestsOut == 0)
    }

    /// Starts a lookup for each key in turn, each one queued before the next starts: tasks started together queue
    /// in whatever order they happen to run, and the tests compare batches in order.
    static func queue(_ keys: [Int], on batcher: RequestBatcher<Int, Int>) async throws -> [Task<Int, any Error>] {
        var tasks: [Task<Int, any Error>] = []
        for key in keys {
            let waiting = batcher.waitingCount + 1
            tasks.append(Task { try await batcher.value(for: key) })
            try await waitUntil { batcher.waitingCount == waiting }
        }
        return tasks
    }

    /// One slot and a spare after 100 ms: key 0's request has been held since 0 ms, and key 1, which queued behind
    /// it, took the spare at 100 ms and is held too; each is released by opening its gate.
    private struct SpareInUse {
        let timers: HandDrivenTimers
        let log: FetchLog
        let stalled: Gate
        let spare: Gate
        let batcher: RequestBatcher<Int, Int>
        let first: Task<Int, any Error>
        let inSpare: Task<Int, any Error>

        static func start() async throws -> SpareInUse {
            let timers = HandDrivenTimers()
            let log = FetchLog()
            let (stalled, spare) = (Gate(), Gate())
            let batcher = RequestBatcherTests.batcherWithASpare(timers: timers, log: log, gates: [0: stalled, 1: spare])
            let first = Task { try await batcher.value(for: 0) }
            try await waitUntil { log.batches.count == 1 }
            let inSpare = Task { try await batcher.value(for: 1) }
            try await waitUntil { batcher.waitingCount == 1 }
            timers.advance(to: 100)
            try await waitUntil { log.batches.count == 3 }
            return SpareInUse(timers: timers, log: log, stalled: stalled, spare: spare, batcher: batcher, first: first, inSpare: inSpare)
        }
    }

    @Test
    func aStalledRequestThatEndsWhileTheSpareIsOutDoesNotSendAnother() async throws {
        let scene = try await SpareInUse.start()
        let (timers, log, batcher, stalled, spare) = (scene.timers, scene.log, scene.batcher, scene.stalled, scene.spare)
        let (first, inSpare) = (scene.first, scene.inSpare)
        let queued = try await Self.queue([2, 3], on: batcher)
        #expect(batcher.requestsOut == 2)

        // At 150 ms the spare (sent at 100 ms) is recent and holds the one slot.
        timers.advance(to: 150)
        await stalled.open()
        #expect(try await first.value == 0)
        #expect(batcher.requestsOut == 1)
        #expect(batcher.waitingCount == 2)

        await spare.open()
        #expect(try await inSpare.value == 1)
        for (key, task) in zip([2, 3], queued) { #expect(try await task.value == key) }
        #expect(log.batches == [[0], [-1], [1], [2, 3]])
    }

    @Test
    func whenTheSpareStallsTooNoThirdRequestGoes() async throws {
        let scene = try await SpareInUse.start()
        let (timers, log, batcher, stalled, spare) = (scene.timers, scene.log, scene.batcher, scene.stalled, scene.spare)
        let (first, inSpare) = (scene.first, scene.inSpare)
        let queued = Task { try await batcher.value(for: 2) }
        try await waitUntil { batcher.waitingCount == 1 }

        // Both requests are past the limit and both timers have run: the spare was the one extra request.
        timers.advance(to: 300)
        #expect(timers.pending.isEmpty)
        #expect(batcher.requestsOut == 2)
        #expect(batcher.waitingCount == 1)

        // The first request's end frees its slot while the spare is still out, stalled: the request for key 2 goes
        // beside it, a spare in turn.
        await stalled.open()
        #expect(try await first.value == 0)
        try await waitUntil { log.batches.count == 5 }
        #expect(log.batches == [[0], [-1], [1], [-1], [2]])
        await spare.open()
        #expect(try await queued.value == 2)
        #expect(try await inSpare.value == 1)
    }

    @Test
    func aRequestThatEndsInTimeCancelsItsStallTimer() async throws {
        let timers = HandDrivenTimers()
        let batcher = Self.batcherWithASpare(timers: timers, log: FetchLog(), gates: [:])
        #expect(try await batcher.value(for: 1) == 1)
        #expect(timers.pending.isEmpty)
    }
}

/// The key lists a fetch was called with, in order.
private final class FetchLog: Sendable {
    private let calls = Mutex<[[Int]]>([])
    func record(_ keys: [Int]) { calls.withLock { $0.append(keys) } }
    var batches: [[Int]] { calls.withLock { $0 } }
}

/// Holds fetches until opened.
private actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}

/// A batcher of one slot whose fetch logs its keys, waits at `gate` when asked for key 0 alone, then answers.
private func oneSlotBatcherBlockedAtZero(
    maxBatch: Int, log: FetchLog, gate: Gate, answer: @escaping @Sendable ([Int]) throws -> [Int]
) -> RequestBatcher<Int, Int> {
    RequestBatcher(slots: 1, maxBatch: maxBatch) { keys in
        log.record(keys)
        if keys == [0] { await gate.wait() }
        return try answer(keys)
    }
}

/// Looks key 0 up (its fetch must wait at `gate`, and answer 0), queues a lookup of each of `keys` behind it with
/// `lookUp`, opens the gate once all of them wait, and returns when every lookup has ended.
private func queueBehindABlockedLookup(
    _ batcher: RequestBatcher<Int, Int>, log: FetchLog, gate: Gate, keys: ClosedRange<Int>,
    lookUp: @escaping @Sendable (Int) async throws -> Void
) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
            let value = try await batcher.value(for: 0)
            #expect(value == 0)
        }
        try await waitUntil { log.batches.count == 1 }
        for key in keys {
            group.addTask { try await lookUp(key) }
        }
        try await waitUntil { batcher.waitingCount == keys.count }
        await gate.open()
        try await group.waitForAll()
    }
}
