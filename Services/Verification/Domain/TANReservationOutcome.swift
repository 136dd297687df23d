/// What `/version/v1/tans/reserve` answers for one TAN (see openapi/verification.yaml).
public enum TANReservationOutcome: Sendable, Equatable {
    /// Held for the asking upload's key until the lease runs out.
    case reserved(RedeemedTAN)
    /// Already spent by the same key, within the repeat window: the upload repeats one that succeeded.
    case confirmed(RedeemedTAN)
    /// Held by another upload's key for `retryAfter` more.
    case busy(retryAfter: Duration)
    /// Unknown, expired, or spent by another key.
    case refused
}

/// What `/version/v1/tans/release` answers for one reservation key.
public enum TANReleaseOutcome: String, Sendable, Equatable {
    /// The key no longer holds a TAN: freed now, or freed or taken over before.
    case released
    /// The key spent its TAN: the upload's keys are to be published.
    case confirmed
    /// Asked to release only run-out leases, and this one still runs.
    case leased
}
