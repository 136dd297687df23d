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
public struct KeyIntake: Sendable {
    /// An upload's keys, counted when its TAN is spent (padding and a retry's keys, stored before, not counted): what
    /// apps do, so served for finished days only.
    public static let keysSubmitted = DailyFigure("keys_submitted", isAppSide: true)
    /// Keys in the export files a scheduled distribution run wrote (CWA and ProteGO outputs, padding included): what
    /// every phone downloads anyway.
    public static let keysPublished = DailyFigure("keys_published", isAppSide: false)
    /// Uploads that stored a credential's first keys, by app family (`UploadLane.family`, and `covidshield` for a key
    /// pair's first keys): the last step of each family's funnel on the statistics page. A CWA or ProteGO TAN is spent
    /// by one upload (an app's retry stores nothing new and is not counted again); a CovidShield app uploads under one
    /// key pair for days, and counts once.
    public static let uploads = DailyFigure("uploads", isAppSide: true)
    public static let figures = [keysSubmitted, keysPublished, uploads]

    /// Daily statistics (docs/statistics.md).
    let statistics: DailyCounter
    let store: DiagnosisKeyStore
    public let reservations: TANReservations
    let redemptionKeys: RedemptionKeyDeriver
    let padding: KeyPadding
    let environment: ServiceEnvironment

    public init(
        statistics: DailyCounter, store: DiagnosisKeyStore, reservations: TANReservations, redemptionKeys: RedemptionKeyDeriver,
        padding: KeyPadding, environment: ServiceEnvironment
    ) {
        self.statistics = statistics
        self.store = store
        self.reservations = reservations
        self.redemptionKeys = redemptionKeys
        self.padding = padding
        self.environment = environment
    }

    /// Uploads validated keys with `tan` (a lower-case UUID v4) on `lane`: only a TAN issued for the lane's family
    /// (and region) is spent; any other is answered as an unknown one.
    public func upload(_ keys: [DiagnosisKey], tan: String, lane: UploadLane, now: Date) async -> UploadOutcome {
        // The upload's name at verification: the same TAN with the same keys is the same upload (a retry).
        let reservation = redemptionKeys.key(for: tan, keys: keys)

        // 1. Reserve: nothing is spent yet.
        if let refused = await reserve(tan: tan, reservation: reservation, lane: lane) {
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
        let confirmed: TANOrigin?
        do {
            confirmed = try await reservations.confirm(key: reservation)
        } catch {
            // Spent or not, we cannot tell: the keys stay pending and the recovery job settles them with verification.
            return .unavailable(dependency: "verification service")
        }
        guard let confirmed else {
            // The lease ran out before the keys were stored (a stall): nothing was spent. The app tries again.
            _ = try? await store.discard(reservation: reservation)
            return .lapsed
        }
        guard lane.accepts(confirmed) else {
            // The reservation was of this lane's family, so verification contradicted itself: the keys are not
            // published under another family's TAN, whatever it cost.
            environment.logger.error("a confirmed TAN is of another family than its reservation; keys discarded")
            _ = try? await store.discard(reservation: reservation)
            return .refusedTAN
        }
        statistics.count(Self.keysSubmitted, by: outcome.inserted)
        // An app's retry of an upload that went through stores nothing new, and is not a second upload.
        if outcome.inserted > 0 { statistics.count(Self.uploads, breakdown: lane.family) }
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
    ///
    /// A TAN of another family is refused exactly as an unknown one: the same outcome, and the same two requests to
    /// verification (its reservation is released; an unknown TAN's upload releases a random key, which holds
    /// nothing), so that neither the answer nor its timing tells a foreign TAN from one that does not exist.
    private func reserve(tan: String, reservation: String, lane: UploadLane) async -> UploadOutcome? {
        let answer: TANReservation
        do {
            answer = try await reservations.reserve(tan: tan, key: reservation)
        } catch {
            // No answer that can be used (`DownstreamError`, logged where it happened): nothing was reserved or stored.
            return .unavailable(dependency: "verification service")
        }
        switch answer {
        case .refused:
            _ = try? await reservations.release(keys: [Codes.redemptionKey(using: environment.random)], expiredOnly: false)
            return .refusedTAN
        case .busy(let retryAfter):
            return .busy(retryAfter: retryAfter)
        case .reserved(let origin) where !lane.accepts(origin):
            // Another family's TAN: given back unspent, for its own family's upload.
            _ = try? await reservations.release(keys: [reservation], expiredOnly: false)
            return .refusedTAN
        case .confirmed(let origin) where !lane.accepts(origin):
            // Spent by its own family's upload of the same keys: no repeat here.
            _ = try? await reservations.release(keys: [Codes.redemptionKey(using: environment.random)], expiredOnly: false)
            return .refusedTAN
        case .reserved(let origin) where origin.isEvent:
            // An event teleTAN entitles a host warning, not key submission: refused, and given back unspent.
            _ = try? await reservations.release(keys: [reservation], expiredOnly: false)
            return .eventTAN
        case .confirmed(let origin) where origin.isEvent:
            return .eventTAN
        case .reserved, .confirmed:
            return nil
        }
    }
}
