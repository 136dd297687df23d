import Foundation
import Logging

/// What every service is given from outside: time, randomness, a logger and where its hourly counts go. Tests pass
/// a `ManualClock` and a `SeededRandomSource`; production passes the system clock and the CSPRNG.
public struct ServiceEnvironment: Sendable {
    public var clock: any WallClock
    public var random: any RandomSource
    public var logger: Logger
    /// Where a finished hour's counts of the service's `HourlyTally` go: the process's gauges. Tests add a record of
    /// their own, since gauges are one per process and other tests running at the same time set them too.
    public var publishHour: @Sendable (_ hourStart: Date, _ counts: [HourlyTally.Series: Int64]) -> Void = HourlyTally.publishToGauges

    public init(clock: any WallClock = SystemClock(), random: any RandomSource = SystemRandomSource(), logger: Logger) {
        self.clock = clock
        self.random = random
        self.logger = logger
    }

    /// The same environment with a logger labelled for one service.
    public func named(_ service: String) -> ServiceEnvironment {
        var copy = self
        copy.logger = Logger(label: "exposure.\(service)", factory: { _ in self.logger.handler })
        copy.logger.logLevel = logger.logLevel
        copy.logger[metadataKey: "service"] = "\(service)"
        return copy
    }
}
