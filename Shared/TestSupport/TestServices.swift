import ExposureCore
import Foundation
import Logging

/// Runs service bundles on free ports for the length of a test, then shuts them down.
public enum TestServices {
    public static func withRunning<T: Sendable>(
        _ bundles: [ServiceBundle],
        _ body: (RunningServices) async throws -> T
    ) async throws -> T {
        let running = await RunningServices.start(bundles, logger: TestLogger.quiet)
        do {
            let result = try await body(running)
            await running.stop()
            return result
        } catch {
            await running.stop()
            throw error
        }
    }

    /// A client for the listener `listener` of the bundle `service`. On an internal listener it presents, per route, the
    /// token of the service that calls it (`TestServiceTokens.token(forInternalPath:)`), as that service would.
    public static func client(_ running: RunningServices, _ service: String, _ listener: String) async -> TestHTTPClient {
        var client = TestHTTPClient(port: await running.bundle(service).port(listener))
        if listener == "internal" { client.serviceToken = { TestServiceTokens.token(forInternalPath: $0) } }
        return client
    }

    /// A client for the management listener (`/metrics`, `/health/ready`) of the bundle `service`.
    public static func management(_ running: RunningServices, _ service: String) async -> TestHTTPClient {
        TestHTTPClient(port: await running.bundle(service).port(ManagementRouter.listenerName))
    }

    /// An environment with a manual clock and a seeded random source, for deterministic tests.
    /// Metrics are bootstrapped first, as `serve` does before it builds a service: the handles a service makes at
    /// start-up would otherwise count into nothing, and a test reading them would depend on which test ran first.
    public static func environment(clock: ManualClock = ManualClock(), seed: UInt64 = 42) -> ServiceEnvironment {
        Observability.bootstrapMetrics()
        return ServiceEnvironment(clock: clock, random: SeededRandomSource(seed: seed), logger: TestLogger.quiet)
    }

    /// A `TELETAN_HASH_KEYS` for tests (a fixed key: tests of what is stored compute hashes with it).
    public static let teleTANHashKeys = "test:" + Data(repeating: 0x5A, count: 32).base64EncodedString()

    /// Settings from an explicit environment only (no process environment, no flags): tests say what they mean,
    /// over what every service needs to start beside others in one test process: its management listener on a free
    /// port, and the service tokens of `TestServiceTokens` (what a test sets itself wins).
    public static func settings(_ environment: [String: String]) -> Settings {
        Settings(arguments: ["test"], environment: TestServiceTokens.serviceDefaults.merging(environment) { $1 })
    }
}
