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
        /// Each member's replicas by number: 0 is the one the stack started, the others `startReplica`'s.
        var running: [StackMember: [Int: ServiceProcess]] = [:]
        /// Every process started, restarts and killed ones included, for their logs.
        var started: [ServiceProcess] = []
        /// Each replica's environment: the same settings, its own ports.
        var environments: [StackMember: [[String: String]]] = [:]
    }

    public init(base: [String: String]) {
        self.base = base
    }

    /// `portal-service signing-key` prints the public half of the portal's key, which is written to `publicKeyFile`.
    public func preparePortalKey(variables: [String: String], publicKeyFile: String) async throws -> String {
        let environment = base.merging(variables) { $1 }
        let signing = try await ServiceProcess.run(StackMember.portal.executable, ["signing-key"], environment: environment)
        guard signing.status == 0, signing.output.contains("-----BEGIN PUBLIC KEY-----") else {
            throw ServiceProcessError.exited("portal-service signing-key", signing.status, signing.output)
        }
        try signing.output.write(toFile: publicKeyFile, atomically: true, encoding: .utf8)
        // The issuer and audience the portal puts in its tokens, as its configuration reads them.
        let portal = try PortalConfiguration(Settings(arguments: ["test"], environment: environment))
        return "\(publicKeyFile)|\(portal.tokenIssuer)|\(portal.tokenAudience)"
    }

    /// Gives each listener a free port unless the variables name one, starts the executable and waits until it
    /// answers `/health/live`.
    public func start(_ member: StackMember, variables: [String: String]) async throws -> [String: Int] {
        let (environment, ports) = Self.withPorts(base.merging(variables) { $1 }, for: member, keepingGiven: true)
        state.withLock { $0.environments[member] = [environment] }
        try await launch(member, replica: 0)
        return ports
    }

    /// Starts one more replica of `member`: the first one's settings on ports of its own, as a second pod of a
    /// deployment. Answers its number (for `kill` and `restart`) and its listeners' ports.
    public func startReplica(of member: StackMember) async throws -> (replica: Int, ports: [String: Int]) {
        let first = try environment(of: member)
        let (environment, ports) = Self.withPorts(first, for: member, keepingGiven: false)
        let replica = state.withLock { state in
            state.environments[member, default: []].append(environment)
            return state.environments[member]!.count - 1
        }
        try await launch(member, replica: replica)
        return (replica, ports)
    }

    /// Stops every replica of `member` gracefully.
    public func stop(_ member: StackMember) async {
        let processes = state.withLock { $0.running.removeValue(forKey: member) } ?? [:]
        for process in processes.values { process.stop() }
    }

    /// Starts replica `replica` of `member` again (after `kill`) with the environment it had, and waits until it answers.
    public func restart(_ member: StackMember, replica: Int = 0) async throws {
        try await launch(member, replica: replica)
    }

    /// SIGKILL: a crash.
    public func kill(_ member: StackMember, replica: Int = 0) {
        state.withLock { $0.running[member]?[replica] }?.kill()
    }

    /// The environment `member`'s processes get (a command run beside them, `healthcheck`, uses it too).
    public func environment(of member: StackMember, replica: Int = 0) throws -> [String: String] {
        guard let environment = state.withLock({ $0.environments[member]?.dropFirst(replica).first }) else {
            throw ServiceProcessError.exited(member.executable, -1, "has no replica \(replica) in this stack")
        }
        return environment
    }

    /// Every log line of every process started, in the order they were started.
    public var logs: String {
        state.withLock { $0.started }.map(\.log).joined(separator: "\n")
    }

    /// `environment` with a port for each of `member`'s listeners: a free one, or with `keepingGiven` the one it
    /// names already (a test that needs to know a port before the start).
    private static func withPorts(
        _ environment: [String: String], for member: StackMember, keepingGiven: Bool
    ) -> (environment: [String: String], ports: [String: Int]) {
        var environment = environment
        var ports: [String: Int] = [:]
        for (variable, listener) in member.listeners {
            let given = keepingGiven ? environment[variable].flatMap(Int.init).flatMap { $0 == 0 ? nil : $0 } : nil
            let port = given ?? ServiceProcess.freePort()
            environment[variable] = "\(port)"
            ports[listener] = port
        }
        return (environment, ports)
    }

    private func launch(_ member: StackMember, replica: Int) async throws {
        let environment = try environment(of: member, replica: replica)
        let process = try ServiceProcess(member.executable, environment: environment)
        state.withLock {
            $0.running[member, default: [:]][replica] = process
            $0.started.append(process)
        }
        try await process.waitUntilReady("http://127.0.0.1:\(environment["PORT"]!)/health/live")
    }
}
