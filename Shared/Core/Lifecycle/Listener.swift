import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import HummingbirdTLS
import ServiceLifecycle
import UnixSignals

/// Where one HTTP listener of a service binds. Port 0 asks the system for a free port (tests).
public struct ListenerAddress: Sendable, Equatable {
    public var host: String
    public var port: Int

    public init(host: String = "0.0.0.0", port: Int) {
        self.host = host
        self.port = port
    }
}

/// The port a listener actually bound, known once it is running.
public final class BoundPort: @unchecked Sendable {
    private let lock = NSLock()
    private var port: Int?
    private var waiters: [CheckedContinuation<Int, Never>] = []

    public init() {}

    func set(_ value: Int) {
        let toResume: [CheckedContinuation<Int, Never>] = lock.withLock {
            port = value
            defer { waiters = [] }
            return waiters
        }
        toResume.forEach { $0.resume(returning: value) }
    }

    /// Waits until the listener is bound.
    public func value() async -> Int {
        await withCheckedContinuation { continuation in
            lock.lock()
            if let port {
                lock.unlock()
                continuation.resume(returning: port)
            } else {
                waiters.append(continuation)
                lock.unlock()
            }
        }
    }
}

/// One running HTTP listener: a Hummingbird application on its own address.
public struct HTTPListener: Sendable {
    public let name: String
    public let address: ListenerAddress
    public let boundPort: BoundPort
    public let service: any Service

    /// Builds a plain HTTP listener serving `router`, with the core's standard middleware already added by the caller.
    /// With `clientAddresses`, each request runs with `ClientAddress.current` set (limits per source).
    public init(
        name: String, address: ListenerAddress, router: Router<BasicRequestContext>, serviceName: String, logger: Logger,
        limits: ListenerLimits = ListenerLimits(), clientAddresses: ClientAddressResolver? = nil
    ) {
        // Without TLS nothing in the server builder can fail.
        try! self.init(
            name: name, address: address, router: router, serviceName: serviceName, logger: logger, tls: nil, limits: limits,
            clientAddresses: clientAddresses
        )
    }

    /// Builds a listener serving `router`; with `tls`, it speaks HTTPS (and may ask clients for certificates).
    /// Every connection is held to `limits` (`ConnectionGuard`).
    public init(
        name: String, address: ListenerAddress, router: Router<BasicRequestContext>, serviceName: String, logger: Logger,
        tls: ListenerTLS?, limits: ListenerLimits = ListenerLimits(), clientAddresses: ClientAddressResolver? = nil
    ) throws {
        let boundPort = BoundPort()
        self.name = name
        self.address = address
        self.boundPort = boundPort
        var configuredLogger = logger
        configuredLogger[metadataKey: "listener"] = "\(name)"
        let listenerLogger = configuredLogger
        let connections = ConnectionCount(limit: limits.maxConnections)
        let readTimeout = limits.readTimeout
        let clientCertificates = tls?.requestClientCertificate == true
        let http1 = HTTPServerBuilder.http1(configuration: .init(
            additionalChannelHandlers: {
                let guardHandler: any RemovableChannelHandler = ConnectionGuard(count: connections, readTimeout: readTimeout)
                return clientCertificates ? [guardHandler, ClientCertificateHeaderHandler()] : [guardHandler]
            }(),
            idleTimeout: .nanoseconds(Int64(limits.idleTimeout.seconds * 1e9))
        ))
        let server: HTTPServerBuilder = try tls.map { try .tls(http1, configuration: $0.channelConfiguration) } ?? http1
        tls?.recordCertificateExpiry(listener: name)
        let configuration = ApplicationConfiguration(address: .hostname(address.host, port: address.port), serverName: nil)
        let running: @Sendable (any Channel) async -> Void = { channel in
            let port = channel.localAddress?.port ?? address.port
            boundPort.set(port)
            listenerLogger.info("listening", metadata: ["service": "\(serviceName)", "port": "\(port)"])
        }
        if let clientAddresses {
            self.service = Application(
                responder: ClientAddressResponder(inner: router.buildResponder(), resolver: clientAddresses),
                server: server, configuration: configuration, onServerRunning: running, logger: listenerLogger
            )
        } else {
            self.service = Application(
                router: router, server: server, configuration: configuration, onServerRunning: running, logger: listenerLogger
            )
        }
    }
}

/// Everything one service runs: its listeners, background jobs and what to close at the end.
public final class ServiceBundle: Sendable {
    public let name: String
    public let listeners: [HTTPListener]
    public let jobs: [any Service]
    private let cleanup: @Sendable () async -> Void

    public init(name: String, listeners: [HTTPListener], jobs: [any Service] = [], cleanup: @escaping @Sendable () async -> Void) {
        self.name = name
        self.listeners = listeners
        self.jobs = jobs
        self.cleanup = cleanup
    }

    public var services: [any Service] { listeners.map(\.service) + jobs }

    /// The bound port of the listener named `name`.
    public func port(_ name: String) async -> Int {
        guard let listener = listeners.first(where: { $0.name == name }) else {
            preconditionFailure("no listener named \(name) in \(self.name)")
        }
        return await listener.boundPort.value()
    }

    /// Closes databases and clients, after the listeners have stopped.
    public func close() async {
        await cleanup()
    }
}

/// Runs bundles until SIGTERM or SIGINT, then shuts down gracefully: listeners stop accepting, requests in
/// flight finish, jobs stop, and each bundle closes its resources.
public enum ServiceRunner {
    public static func run(_ bundles: [ServiceBundle], logger: Logger) async throws {
        let group = ServiceGroup(
            configuration: .init(
                services: bundles.flatMap(\.services).map { .init(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        do {
            try await group.run()
        } catch {
            for bundle in bundles { await bundle.close() }
            throw error
        }
        for bundle in bundles { await bundle.close() }
    }
}

/// Bundles running in the background of the current process, stopped on demand: what tests and the
/// all-in-one launcher use when they need the services up while they do something else.
public final class RunningServices: Sendable {
    public let bundles: [ServiceBundle]
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(bundles: [ServiceBundle], group: ServiceGroup, task: Task<Void, any Error>) {
        self.bundles = bundles
        self.group = group
        self.task = task
    }

    /// Starts `bundles` and waits until every listener is bound. With `shutdownSignals` (the launcher passes
    /// SIGTERM and SIGINT) the services also stop gracefully on those signals.
    public static func start(_ bundles: [ServiceBundle], logger: Logger, shutdownSignals: [UnixSignal] = []) async -> RunningServices {
        let group = ServiceGroup(
            configuration: .init(
                services: bundles.flatMap(\.services).map { .init(service: $0) },
                gracefulShutdownSignals: shutdownSignals,
                logger: logger
            )
        )
        let task = Task { try await group.run() }
        for bundle in bundles {
            for listener in bundle.listeners { _ = await listener.boundPort.value() }
        }
        return RunningServices(bundles: bundles, group: group, task: task)
    }

    /// The bundle named `name`.
    public func bundle(_ name: String) -> ServiceBundle {
        guard let bundle = bundles.first(where: { $0.name == name }) else { preconditionFailure("no service named \(name)") }
        return bundle
    }

    /// Waits until the services stopped (after a shutdown signal), then closes every bundle's resources.
    public func wait() async throws {
        let result = await task.result
        for bundle in bundles { await bundle.close() }
        try result.get()
    }

    /// Graceful shutdown, then closes every bundle's resources.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        for bundle in bundles { await bundle.close() }
    }
}
