import ExposureCore
import ExposureStack
import Foundation
import Synchronization

/// The hourly counts the services of one test published (`ServiceEnvironment.publishHour`), by member: what the
/// gauges showed for them, without the other tests of the process, whose services set the same gauges.
public final class PublishedHours: Sendable {
    private let published = Mutex<[StackMember: [HourlyTally.Series: Int64]]>([:])

    public init() {}

    /// Records `counts` as `member`'s latest finished hour, and sets the gauges as a service does.
    public func publisher(for member: StackMember) -> @Sendable (Date, [HourlyTally.Series: Int64]) -> Void {
        { hourStart, counts in
            self.published.withLock { $0[member] = counts }
            HourlyTally.publishToGauges(hourStart, counts)
        }
    }

    /// The count of `label` with `dimensions` in `member`'s latest published hour; nil before any was published.
    public func last(_ member: StackMember, _ label: String, _ dimensions: [(String, String)] = []) -> Int64? {
        published.withLock { $0[member]?[HourlyTally.Series(label, dimensions)] }
    }
}
