import ExposureCore
import Foundation
import Logging
import SubmissionCore

/// Settles uploads left pending: their request stopped between storing the keys and publishing them (the process was
/// killed, verification's answer to the confirmation was lost, the database failed at the end).
///
/// For each upload pending longer than `after`, verification is asked to release the reservation if its lease has run
/// out (`TANReservations.release(expiredOnly:)`). Its answer decides, and is final because verification's row decides
/// between the confirmation and the release: `confirmed` (the TAN was spent by this upload) publishes the keys;
/// `released` (nothing was spent, and now nothing can be) deletes them, and the app's retry may use the TAN again;
/// `leased` waits for a later round. Every replica runs it: each step is safe to repeat and to run concurrently.
struct PendingUploadRecovery: Sendable {
    /// Uploads settled per round at most; the rest wait for the next round.
    static let roundLimit = 1000

    let store: DiagnosisKeyStore
    let reservations: TANReservations
    /// How long an upload must have been pending before the job asks about it: uploads in flight settle themselves.
    let after: Duration
    let clock: any WallClock
    let logger: Logger

    /// What one round did.
    struct Report: Sendable, Equatable {
        var published = 0
        var discarded = 0
        var leased = 0
    }

    @discardableResult
    func run() async throws -> Report {
        let cutoff = clock.now().addingTimeInterval(-after.seconds)
        let pending = try await store.pendingUploads(since: cutoff, limit: Self.roundLimit)
        guard !pending.isEmpty else { return Report() }
        let outcomes = try await reservations.release(keys: pending, expiredOnly: true)
        var report = Report()
        for (reservation, outcome) in zip(pending, outcomes) {
            switch outcome {
            case .confirmed:
                try await store.publish(reservation: reservation)
                report.published += 1
            case .released:
                try await store.discard(reservation: reservation)
                report.discarded += 1
            case .leased:
                report.leased += 1
            }
        }
        logger.info("pending uploads settled", metadata: [
            "published": "\(report.published)", "discarded": "\(report.discarded)", "leased": "\(report.leased)",
        ])
        return report
    }
}
