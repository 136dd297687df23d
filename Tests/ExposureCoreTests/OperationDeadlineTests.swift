import ExposureTestSupport
import Foundation
import Testing

@testable import ExposureCore

/// The deadline of one database operation (`DATABASE_TIMEOUT`): the caller gets the operation's outcome, or at the
/// deadline an error, even when the operation ignores cancellation.
@Suite struct OperationDeadlineTests {
    struct Refused: Error {}

    @Test func theOperationsValueComesBackWhenItEndsFirst() async throws {
        let value = try await OperationDeadline.run(.seconds(5)) { 42 }
        #expect(value == 42)
    }

    @Test func theOperationsErrorComesBackWhenItEndsFirst() async {
        await #expect(throws: Refused.self) {
            try await OperationDeadline.run(.seconds(5)) { () async throws -> Int in throw Refused() }
        }
    }

    @Test func aStuckOperationFailsAtTheDeadline() async {
        let start = ContinuousClock.now
        await #expect(throws: DatabaseTimeoutError.self) {
            try await OperationDeadline.run(.milliseconds(100)) { () async throws -> Int in
                // A query on a connection the server closed under it: cancellation does not end it.
                await Self.ignoringCancellation(for: 3)
                return 1
            }
        }
        // The caller did not wait for the operation (3 s); the bound is loose, this is not a speed test.
        #expect(ContinuousClock.now - start < .seconds(2))
    }

    @Test func aCancelledCallerOfAStuckOperationStillGetsAnAnswerAtTheDeadline() async {
        let start = ContinuousClock.now
        let caller = Task {
            try await OperationDeadline.run(.milliseconds(200)) { () async throws -> Int in
                await Self.ignoringCancellation(for: 3)
                return 1
            }
        }
        try? await Task.sleep(for: .milliseconds(20))
        caller.cancel()
        await #expect(throws: DatabaseTimeoutError.self) { try await caller.value }
        #expect(ContinuousClock.now - start < .seconds(2))
    }

    @Test func anOperationThatLiftsItsDeadlineInTimeMayTakeLonger() async throws {
        let value = try await OperationDeadline.run(.milliseconds(100), untilLifted: { deadline in
            #expect(deadline.lift())
            await Self.ignoringCancellation(for: 0.4)
            return 7
        })
        #expect(value == 7)
    }

    @Test func anOperationTooLateToLiftItsDeadlineIsToldSo() async {
        let toldLate = Flag()
        let operationEnded = Flag()
        await #expect(throws: DatabaseTimeoutError.self) {
            try await OperationDeadline.run(.milliseconds(100), untilLifted: { deadline in
                await Self.ignoringCancellation(for: 0.3)
                if !deadline.lift() { toldLate.set() }
                operationEnded.set()
                return 1
            })
        }
        // The caller was answered at the deadline; the operation ends later by itself.
        let deadline = ContinuousClock.now + .seconds(5)
        while !operationEnded.isSet, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        #expect(toldLate.isSet)
    }

    /// Waits `seconds` whatever happens to the task meanwhile.
    static func ignoringCancellation(for seconds: Double) async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { continuation.resume() }
        }
    }
}
