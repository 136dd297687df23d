import ExposureTestSupport
import Foundation
import Testing

@testable import ExposureCore

/// The deadline of one database operation (`DATABASE_TIMEOUT`): the caller gets the operation's outcome, or at the
/// deadline an error, even when the operation ignores cancellation. The deadlines' timers are fired by hand.
@Suite struct OperationDeadlineTests {
    struct Refused: Error {}

    @Test func theOperationsValueComesBackWhenItEndsFirstAndItsTimerIsCancelled() async throws {
        let timers = HandDrivenTimers()
        let value = try await OperationDeadline.run(.seconds(5), timers: timers) { 42 }
        #expect(value == 42)
        #expect(timers.delays == [.seconds(5)])
        // A timer left behind would sit in the event loop's queue for the whole limit, one per query.
        #expect(timers.cancellations == [true])
    }

    @Test func theOperationsErrorComesBackWhenItEndsFirstAndItsTimerIsCancelled() async {
        let timers = HandDrivenTimers()
        await #expect(throws: Refused.self) {
            try await OperationDeadline.run(.seconds(5), timers: timers) { () async throws -> Int in throw Refused() }
        }
        #expect(timers.cancellations == [true])
    }

    @Test func aStuckOperationFailsAtTheDeadlineAndIsAskedToStop() async throws {
        let stuck = StuckOperation()
        await Self.waitUntil(stuck.started)
        stuck.timers.fire()
        await #expect(throws: DatabaseTimeoutError.self) { try await stuck.caller.value }
        #expect(stuck.askedToStop.isSet)
        stuck.release.set()
    }

    @Test func aDeadlineThatPassesBeforeTheOperationStartsStillAnswersAndStopsIt() async {
        // The timer fires inside `schedule`, before the operation's task exists: the caller is answered, and the
        // operation, once started, is cancelled rather than left to run.
        let timers = HandDrivenTimers(whenScheduled: { $0.fire() })
        let cancelledAtStart = Flag()
        let ran = Flag()
        await #expect(throws: DatabaseTimeoutError.self) {
            try await OperationDeadline.run(.milliseconds(100), timers: timers) { () async throws -> Int in
                defer { ran.set() }
                try? await Task.sleep(for: .seconds(30))
                if Task.isCancelled { cancelledAtStart.set() }
                return 1
            }
        }
        await Self.waitUntil(ran)
        #expect(cancelledAtStart.isSet)
    }

    @Test func aCancelledCallerOfAStuckOperationStillGetsAnAnswerAtTheDeadline() async {
        let stuck = StuckOperation()
        await Self.waitUntil(stuck.started)
        stuck.caller.cancel()
        await Self.waitUntil(stuck.askedToStop)
        #expect(stuck.askedToStop.isSet, "the caller's cancellation did not reach the operation")
        // The operation ignores the request; the deadline still answers the caller.
        stuck.timers.fire()
        await #expect(throws: DatabaseTimeoutError.self) { try await stuck.caller.value }
        stuck.release.set()
    }

    @Test func anOperationThatLiftsItsDeadlineInTimeMayTakeLonger() async throws {
        let timers = HandDrivenTimers()
        let value = try await OperationDeadline.run(.milliseconds(100), timers: timers, untilLifted: { deadline in
            #expect(deadline.lift())
            // The deadline's moment comes while the operation still runs; its timer was cancelled, so it never fires.
            timers.fire()
            return 7
        })
        #expect(value == 7)
        #expect(timers.cancellations == [true])
    }

    @Test func aTimerThatFiresAfterTheLiftIsIgnored() async throws {
        // Cancelling an event loop's timer can come too late for a timer already running.
        let timers = HandDrivenTimers()
        let value = try await OperationDeadline.run(.milliseconds(100), timers: timers, untilLifted: { deadline in
            #expect(deadline.lift())
            timers.fireEvenIfCancelled()
            return 7
        })
        #expect(value == 7)
    }

    @Test func anOperationTooLateToLiftItsDeadlineIsToldSo() async {
        let timers = HandDrivenTimers()
        let started = Flag()
        let release = Flag()
        let toldLate = Flag()
        let operationEnded = Flag()
        let caller = Task {
            try await OperationDeadline.run(.milliseconds(100), timers: timers, untilLifted: { deadline in
                started.set()
                await Self.waitIgnoringCancellation(until: release)
                if !deadline.lift() { toldLate.set() }
                operationEnded.set()
                return 1
            })
        }
        await Self.waitUntil(started)
        timers.fire()
        // The caller was answered at the deadline; the operation ends later by itself.
        await #expect(throws: DatabaseTimeoutError.self) { try await caller.value }
        release.set()
        await Self.waitUntil(operationEnded)
        #expect(toldLate.isSet)
    }

    /// A caller of an operation stuck like a query on a connection the server closed under it: the operation
    /// notices cancellation (`askedToStop`) but ends only when the test sets `release`.
    struct StuckOperation {
        let timers = HandDrivenTimers()
        let started = Flag()
        let askedToStop = Flag()
        let release = Flag()
        let caller: Task<Int, any Error>

        init() {
            let (timers, started, askedToStop, release) = (self.timers, self.started, self.askedToStop, self.release)
            caller = Task {
                try await OperationDeadline.run(.milliseconds(100), timers: timers) { () async throws -> Int in
                    started.set()
                    await withTaskCancellationHandler {
                        await OperationDeadlineTests.waitIgnoringCancellation(until: release)
                    } onCancel: {
                        askedToStop.set()
                    }
                    return 1
                }
            }
        }
    }

    /// Waits until `flag` is set, for at most 10 s (a test that fails must not hang).
    static func waitUntil(_ flag: Flag) async {
        try? await flag.wait(limit: .seconds(10))
    }

    /// As `waitUntil`, carrying on through cancellation, as a query stuck on a dead connection does.
    static func waitIgnoringCancellation(until flag: Flag) async {
        await Task.detached { await waitUntil(flag) }.value
    }
}
