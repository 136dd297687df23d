/// What verification said when an upload asked to reserve its TAN (the first phase of the two-phase redemption:
/// docs/reliability.md).
public enum TANReservation: Sendable, Equatable {
    /// The TAN is held for this upload until the lease runs out; what it was issued for.
    case reserved(TANOrigin)
    /// The TAN was already spent by this same upload (same TAN, same keys): a repeat of one that succeeded.
    case confirmed(TANOrigin)
    /// Another upload with this TAN holds it for `retryAfter` more.
    case busy(retryAfter: Duration)
    /// Unknown, expired, or spent by another upload.
    case refused
}

/// How an upload left pending stands at verification (`TANReservations.release`).
public enum TANReleaseOutcome: Sendable, Equatable {
    /// Its TAN is no longer held by it: nothing was spent, its pending keys are to be deleted.
    case released
    /// It spent its TAN: its pending keys are to be published.
    case confirmed
    /// Its lease still runs: ask again later.
    case leased
}
