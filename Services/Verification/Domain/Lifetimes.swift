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
    /// CovidShield one-time codes: dead 10 minutes after issue unless claimed (the sheet's rule).
    public var covidShieldCode: Duration = .seconds(600)
    /// ProteGO PINs: 30 minutes (the reference's lifetime; an issuer's batch may name another, `ProteGOBatch`).
    public var proteGOCode: Duration = .seconds(1800)
    /// The upload credential a redeemed ProteGO PIN mints (a TAN spent by a successful upload): 30 minutes, as the
    /// reference's access token lived.
    public var proteGOUploadToken: Duration = .seconds(1800)
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

    /// How long a new code of `kind` lives unless its issuer names another lifetime.
    public func oneTimeCode(_ kind: OneTimeCodeKind) -> Duration {
        switch kind {
        case .covidShield: covidShieldCode
        case .proteGO: proteGOCode
        }
    }
}

extension Date {
    public func adding(_ duration: Duration) -> Date { addingTimeInterval(duration.seconds) }
}
