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
        let ignoresCancellationUntil = ContinuousClock.now + .seconds(3)
        let start = ContinuousClock.now
        await #expect(throws: DatabaseTimeoutError.self) {
            try await OperationDeadline.run(.milliseconds(100)) { () async throws -> Int in
                // A query on a connection the server closed under it: cancellation does not end it.
                while ContinuousClock.now < ignoresCancellationUntil { try? await Task.sleep(for: .milliseconds(10)) }
                return 1
            }
        }
        // The caller did not wait for the operation (3 s); the bound is loose, this is not a speed test.
        #expect(ContinuousClock.now - start < .seconds(2))
    }
}
