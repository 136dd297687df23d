import ExposureCore
import Foundation
import Logging
import Portal
import Submission
import Synchronization
import TestResult
import UnixSignals
import Verification

/// Runs each member of a stack in this process, built exactly as its own executable builds it: its configuration
/// type reads the settings, and the services talk to each other over HTTP on localhost.
public final class InProcessRunner: StackRunner {
    /// How a member's variables become its settings: the suite lets the process's prefixed variables win,
    /// tests add their defaults.
    public typealias SettingsReader = @Sendable (StackMember, [String: String]) -> Settings

    private let settings: SettingsReader
    private let environment: @Sendable (StackMember) -> ServiceEnvironment
    private let logger: Logger
    private let serveExportsByDefault: Bool
    private let running = Mutex<[StackMember: RunningServices]>([:])

    /// - Parameters:
    ///   - environment: each member's clock, random source and logger.
    ///   - serveExportsByDefault: whether submission serves its export tree unless told otherwise (the suite).
    public init(
        settings: @escaping SettingsReader,
        environment: @escaping @Sendable (StackMember) -> ServiceEnvironment,
        logger: Logger,
        serveExportsByDefault: Bool = false
    ) {
        self.settings = settings
        self.environment = environment
        self.logger = logger
        self.serveExportsByDefault = serveExportsByDefault
    }

    /// The public half of the portal's configured key, read as the portal reads it.
    public func preparePortalKey(variables: [String: String], publicKeyFile: String) async throws -> String {
        let configuration = try PortalConfiguration(settings(.portal, variables))
        try PortalSigningKey.load(configuration).publicKeyPEM.write(toFile: publicKeyFile, atomically: true, encoding: .utf8)
        return "\(publicKeyFile)|\(configuration.tokenIssuer)|\(configuration.tokenAudience)"
    }

    public func start(_ member: StackMember, variables: [String: String]) async throws -> [String: Int] {
        let bundle = try await makeBundle(member, settings: settings(member, variables), environment: environment(member))
        let services = await RunningServices.start([bundle], logger: logger)
        running.withLock { $0[member] = services }
        var ports: [String: Int] = [:]
        for listener in bundle.listeners { ports[listener.name] = await listener.boundPort.value() }
        return ports
    }

    public func stop(_ member: StackMember) async {
        let services = running.withLock { $0.removeValue(forKey: member) }
        await services?.stop()
    }

    /// The running bundle of `member` (its listeners, jobs and resources), for tests that look inside.
    public func bundle(_ member: StackMember) -> ServiceBundle? {
        running.withLock { $0[member]?.bundles.first }
    }

    /// Waits until a shutdown signal arrives, then stops the members, callers first (the launcher's `serve`).
    public func waitForShutdown<R: StackRunner>(of stack: ServiceStack<R>, signals: [UnixSignal] = [.sigterm, .sigint]) async {
        for await _ in await UnixSignalsSequence(trapping: signals) { break }
        logger.info("stopping: requests in flight finish first")
        await stack.stop()
    }

    private func makeBundle(_ member: StackMember, settings: Settings, environment: ServiceEnvironment) async throws -> ServiceBundle {
        switch member {
        case .testResult:
            try await TestResultService.makeBundle(try TestResultConfiguration(settings), environment: environment)
        case .verification:
            try await VerificationService.makeBundle(try VerificationConfiguration(settings), environment: environment)
        case .submission:
            try await SubmissionService.makeBundle(
                try SubmissionConfiguration(settings, serveExportsByDefault: serveExportsByDefault), environment: environment
            )
        case .portal:
            try await PortalService.makeBundle(try PortalConfiguration(settings), environment: environment)
        }
    }
}
