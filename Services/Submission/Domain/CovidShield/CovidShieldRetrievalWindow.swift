import Foundation

/// The submission hours one retrieval covers, and what its Files' headers say of it.
public struct CovidShieldRetrievalWindow: Sendable, Equatable {
    /// Hours since the epoch: keys submitted in `firstHour..<endHour`.
    public let firstHour: Int64
    public let endHour: Int64
    /// Keys whose rolling start interval is not above this are too old to matter (today's first interval - 14 days).
    public let minimumRollingStart: Int32

    /// Unix seconds of the window, as the Files' headers carry them.
    public var startTimestamp: Int64 { firstHour * 3600 }
    public var endTimestamp: Int64 { endHour * 3600 }

    public init(firstHour: Int64, endHour: Int64, now: Date) {
        self.firstHour = firstHour
        self.endHour = endHour
        let today = now.epochSeconds / 86_400
        minimumRollingStart = Int32((today - 14) * 144)
    }
}
