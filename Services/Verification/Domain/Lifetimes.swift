import ExposureRules
import Foundation

/// How long each code and record lives.
public struct Lifetimes: Sendable, Equatable {
    /// TANs: 14 days.
    public var tan: Duration = .seconds(14 * 86400)
    /// A used TAN is answered as valid again to a repeat of the verification that used it (same redemption key) for
    /// 1 hour: long enough for any retry of a submission, short enough that a spent TAN soon means nothing.
    public var tanRepeat: Duration = .seconds(3600)
    /// An upload holds its TAN this long between reserving and confirming it: 3 minutes. Longer than an upload can
    /// take (its database and downstream calls are bounded far below), short enough that an app retrying with other
    /// keys after a failure waits little.
    public var tanReservation: Duration = .seconds(180)
    /// TEST teleTANs: 1 hour.
    public var teleTANTest: Duration = .seconds(3600)
    /// EVENT teleTANs: 2 days.
    public var teleTANEvent: Duration = .seconds(2 * 86400)
    /// A teleTAN request with an idempotency key is answered with the same teleTAN when repeated for 10 minutes:
    /// the portal's retries of one request take seconds; an officer's page shows the code for 10 minutes.
    public var teleTANRepeat: Duration = .seconds(600)
    /// Sessions and TANs are deleted this long after creation: 21 days.
    public var sessionRetention: Duration = .seconds(21 * 86400)
    /// Used GUIDs, DOB hashes and teleTANs are remembered this long so none can be registered twice while
    /// the test-result service still answers for it: 60 days.
    public var usedKeyRetention: Duration = UsedTestRetention.default

    public init() {}

    public func teleTAN(_ type: TeleTANType) -> Duration {
        switch type {
        case .test: teleTANTest
        case .event: teleTANEvent
        }
    }
}

extension Date {
    public func adding(_ duration: Duration) -> Date { addingTimeInterval(duration.seconds) }
}
