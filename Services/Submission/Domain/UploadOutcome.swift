/// How one upload of validated keys through the two-phase redemption ended (`KeyIntake` in the service). Every
/// app family's adapter answers it in its own wire form; the order of work behind it is the same for all of them.
public enum UploadOutcome: Sendable, Equatable {
    /// The TAN is spent and the keys are publishable (`inserted` new real keys, `paddingInserted` padding keys; a key
    /// stored before is not counted).
    case stored(inserted: Int, paddingInserted: Int)
    /// Verification refused the TAN: unknown, expired, or spent by another upload. Nothing was stored or spent.
    case refusedTAN
    /// The TAN came from an EVENT teleTAN, which entitles a host warning, not key submission. Nothing was spent.
    case eventTAN
    /// Another upload with this TAN holds it for `retryAfter` more.
    case busy(retryAfter: Duration)
    /// The lease ran out before the keys were stored (a stall): nothing was spent; the app may try again.
    case lapsed
    /// A dependency (`database`, `verification service`) gave no usable answer. The TAN is not lost: either it is
    /// free again, or the recovery job publishes the keys it was spent for.
    case unavailable(dependency: String)
}
