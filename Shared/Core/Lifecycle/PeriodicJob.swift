import Foundation
import Logging
import ServiceLifecycle

/// A job that runs every `interval` (retention, distribution) until graceful shutdown.
///
/// Errors are logged and the job runs again at the next interval: one failed round never stops the service.
public struct PeriodicJob: Service {
    public let name: String
    public let interval: Duration
    public let runImmediately: Bool
    private let work: @Sendable () async throws -> Void
    private let logger: Logger

    public init(name: String, interval: Duration, runImmediately: Bool = true, logger: Logger, work: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.interval = interval
        self.runImmediately = runImmediately
        self.logger = logger
        self.work = work
    }

    public func run() async throws {
        if runImmediately { await runOnce() }
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return
            }
            await runOnce()
        }
    }

    private func runOnce() async {
        let start = ContinuousClock.now
        do {
            try await work()
            logger.debug("job finished", metadata: ["job": "\(name)", "duration": "\(ContinuousClock.now - start)"])
        } catch {
            logger.error("job failed", metadata: ["job": "\(name)", "error": "\(String(describing: error))"])
        }
    }
}
