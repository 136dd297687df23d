import ExposureCore
import ExposureStatistics
import Foundation
import SubmissionDomain

/// The order of work every app family's upload goes through once its payload is valid: reserve the TAN, store the
/// keys as pending, confirm the reservation (which spends the TAN), publish the keys (docs/architecture.md, "Two-phase
/// redemption of a TAN"). The CWA handler and the family adapters call it; each answers the `UploadOutcome` in its
/// own wire form.
///
/// Whatever fails, either the keys are published with the TAN spent, or the TAN is usable again once the
/// reservation is released or its lease runs out (docs/reliability.md); `PendingUploadRecovery` settles an upload
/// this call could not finish.
struct KeyIntake: Sendable {
    /// An upload's keys, counted when its TAN is spent (padding and a retry's keys, stored before, not counted): what
    /// apps do, so served for finished days only.
    static let keysSubmitted = DailyFigure("keys_submitted", isAppSide: true)
    /// Keys in the export files a scheduled distribution run wrote (CWA and ProteGO outputs, padding included): what
    /// every phone downloads anyway.
    static let keysPublished = DailyFigure("keys_published", isAppSide: false)
    static let figures = [keysSubmitted, keysPublished]

    /// Daily statistics (docs/statistics.md).
    let statistics: DailyCounter
    let store: DiagnosisKeyStore
    let reservations: TANReservations
    let redemptionKeys: RedemptionKeyDeriver
    let padding: KeyPadding
    let environment: ServiceEnvironment

    /// Uploads validated keys with `tan` (a lower-case UUID v4).
    func upload(_ keys: [DiagnosisKey], tan: String, now: Date) async -> UploadOutcome {
        // The upload's name at verification: the same TAN with the same keys is the same upload (a retry).
        let reservation = redemptionKeys.key(for: tan, keys: keys)

        // 1. Reserve: nothing is spent yet.
        if let refused = await reserve(tan: tan, reservation: reservation) {
            return refused
        }
        // 2. Store the keys as pending, in a transaction of their own.
        let outcome: StoreOutcome
        do {
            let companions = padding.companions(for: keys, random: environment.random)
            outcome = try await store.storePending(keys, padding: companions, reservation: reservation, submittedAt: now)
        } catch {
            environment.logger.error("storing keys failed", metadata: ["error": "\(type(of: error))"])
            // Nothing of this upload can be published, so its TAN is given back at once: the app's retry (with other
            // keys, too) need not wait for the lease. Should the release fail, the lease runs out by itself.
            _ = try? await reservations.release(keys: [reservation], expiredOnly: false)
            return .unavailable(dependency: "database")
        }
        // 3. Confirm: verification spends the TAN, if the lease still runs.
        let confirmed: Bool
        do {
            confirmed = try await reservations.confirm(key: reservation)
        } catch {
            // Spent or not, we cannot tell: the keys stay pending and the recovery job settles them with verification.
            return .unavailable(dependency: "verification service")
        }
        guard confirmed else {
            // The lease ran out before the keys were stored (a stall): nothing was spent. The app tries again.
            _ = try? await store.discard(reservation: reservation)
            return .lapsed
        }
        statistics.count(Self.keysSubmitted, by: outcome.inserted)
        // 4. Publish. The TAN is spent, so the keys will be published whatever happens here: a failure leaves them to
        // the recovery job, which finds the reservation confirmed. The app is told it succeeded either way.
        do {
            try await store.publish(reservation: reservation)
        } catch {
            environment.logger.warning("publishing confirmed keys failed; the recovery job will", metadata: ["error": "\(type(of: error))"])
        }
        return .stored(inserted: outcome.inserted, paddingInserted: outcome.paddingInserted)
    }

    /// The first phase: nil when the TAN is held for this upload (or was spent by it before: a repeat), otherwise how
    /// the upload ends.
    private func reserve(tan: String, reservation: String) async -> UploadOutcome? {
        let answer: TANReservation
        do {
            answer = try await reservations.reserve(tan: tan, key: reservation)
        } catch {
            // No answer that can be used (`DownstreamError`, logged where it happened): nothing was reserved or stored.
            return .unavailable(dependency: "verification service")
        }
        switch answer {
        case .refused:
            return .refusedTAN
        case .busy(let retryAfter):
            return .busy(retryAfter: retryAfter)
        case .reserved(forEvent: true):
            // An event teleTAN entitles a host warning, not key submission: refused, and given back unspent.
            _ = try? await reservations.release(keys: [reservation], expiredOnly: false)
            return .eventTAN
        case .confirmed(forEvent: true):
            return .eventTAN
        case .reserved(forEvent: false), .confirmed(forEvent: false):
            return nil
        }
    }
}
