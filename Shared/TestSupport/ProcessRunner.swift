import ExposureCore
import ExposureStack
import Foundation
import Portal
import Synchronization

/// Runs each member of a stack as its built executable, wired by configuration only, as an operator deploys them
/// (minus the load balancer): what the end-to-end tests start through `ServiceStack`.
public final class ProcessRunner: StackRunner {
    /// Every process's environment beneath the stack's variables.
    private let base: [String: String]
    private let state = Mutex<State>(State())

    private struct State {
        var running: [StackMember: ServiceProcess] = [:]
        /// Every process started, restarts and killed ones included, for their logs.
        var started: [ServiceProcess] = []
        var environments: [StackMember: [String: String]] = [:]
    }

    public init(base: [String: String]) {
        self.base = base
    }

    /// `portal-service signing-key` makes the key under `DATA_DIR` and prints where its public half is.
    public func preparePortalKey(variables: [String: String]) async throws -> String {
        let environment = base.merging(variables) { $1 }
        let signing = try ServiceProcess.run(StackMember.portal.executable, ["signing-key"], environment: environment)
        guard signing.status == 0, let file = signing.output.split(separator: "\n").last(where: { $0.hasSuffix(".pub.pem") }) else {
            throw ServiceProcessError.exited("portal-service signing-key", signing.status, signing.output)
        }
        // The issuer and audience the portal puts in its tokens, as its configuration reads them.
        let portal = try PortalConfiguration(Settings(arguments: ["test"], environment: environment))
        return "\(file)|\(portal.tokenIssuer)|\(portal.tokenAudience)"
    }

    /// Gives each listener a free port unless the variables name one, starts the executable and waits until it
    /// answers `/health/live`.
    public func start(_ member: StackMember, variables: [String: String]) async throws -> [String: Int] {
        var environment = base.merging(variables) { $1 }
        var ports: [String: Int] = [:]
        let listeners = [("PORT", member.publicListener), ("MANAGEMENT_PORT", ManagementRouter.listenerName)]
            + (member.hasInternalListener ? [("INTERNAL_PORT", "internal")] : [])
        for (variable, listener) in listeners {
            let port = environment[variable].flatMap(Int.init).flatMap { $0 == 0 ? nil : $0 } ?? ServiceProcess.freePort()
            environment[variable] = "\(port)"
            ports[listener] = port
        }
        state.withLock { $0.environments[member] = environment }
        try await launch(member, readyAt: ports[member.publicListener]!)
        return ports
    }

    public func stop(_ member: StackMember) async {
        let process = state.withLock { $0.running.removeValue(forKey: member) }
        process?.stop()
    }

    /// Starts `member` again with the environment it was started with (after `kill`), and waits until it answers.
    public func restart(_ member: StackMember) async throws {
        let environment = try environment(of: member)
        try await launch(member, readyAt: Int(environment["PORT"]!)!)
    }

    /// SIGKILL: a crash.
    public func kill(_ member: StackMember) {
        state.withLock { $0.running[member] }?.kill()
    }

    /// The environment `member`'s processes get (a command run beside them, `healthcheck`, uses it too).
    public func environment(of member: StackMember) throws -> [String: String] {
        guard let environment = state.withLock({ $0.environments[member] }) else {
            throw ServiceProcessError.exited(member.executable, -1, "was never started in this stack")
        }
        return environment
    }

    /// Every log line of every process started, in the order they were started.
    public var logs: String {
        state.withLock { $0.started }.map(\.log).joined(separator: "\n")
    }

    private func launch(_ member: StackMember, readyAt port: Int) async throws {
        let process = try ServiceProcess(member.executable, environment: try environment(of: member))
        state.withLock {
            $0.running[member] = process
            $0.started.append(process)
        }
        try await process.waitUntilReady("http://127.0.0.1:\(port)/health/live")
    }
}
