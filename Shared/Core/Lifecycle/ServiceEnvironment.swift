import Foundation
import Logging

/// What every service is given from outside: time, randomness and a logger. Tests pass a `ManualClock`
/// and a `SeededRandomSource`; production passes the system clock and the CSPRNG.
public struct ServiceEnvironment: Sendable {
    public var clock: any WallClock
    public var random: any RandomSource
    public var logger: Logger

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
