import Foundation

/// How many sign-in attempts one user name gets (`LOGIN_ATTEMPTS`, default 5, per `LOGIN_ATTEMPT_WINDOW`,
/// default 15 min), so that a password cannot be guessed online even with bcrypt's cost paid in parallel.
///
/// A window opens with the first attempt after the last one ended, and every attempt counts when it starts, before
/// the password is checked: parallel requests cannot slip past the limit while bcrypt runs. A successful sign-in
/// closes the window. Names are counted whether or not an account has them, so the throttle tells nobody which
/// names exist; what it costs is that someone who knows a name can keep that officer out for a window at a time
/// (single sign-on, when configured, is not throttled here: the identity provider has its own protection).
public struct SignInThrottle: Sendable {
    public let attempts: Int
    public let window: Duration

    public init(attempts: Int, window: Duration) {
        precondition(attempts >= 1)
        self.attempts = attempts
        self.window = window
    }

    public enum Decision: Sendable, Equatable {
        case allowed
        /// No password is checked until the window ends.
        case refused(retryAfterSeconds: Int64)
    }

    /// The decision for the `attemptNumber`-th attempt (counting this one) of a window that opened at `windowStart`.
    public func decide(attemptNumber: Int, windowStart: Int64, now: Date) -> Decision {
        guard attemptNumber > attempts else { return .allowed }
        return .refused(retryAfterSeconds: max(1, windowStart + windowSeconds - now.epochSeconds))
    }

    /// A window that opened at or before this instant has ended.
    public func expiredWindowStart(now: Date) -> Int64 { now.epochSeconds - windowSeconds }

    public var windowSeconds: Int64 { Int64(window.seconds.rounded(.up)) }
}
