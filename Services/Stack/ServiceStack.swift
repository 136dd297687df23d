import ExposureCore
import Foundation

/// The one way to start any set of the services with their wiring: the all-in-one launcher, every test harness
/// and the end-to-end tests (as processes) all start their services here.
///
///     let stack = try await ServiceStack.start(plan, on: InProcessRunner(...))
///     let verification = stack.url(.verification, "app")
///     await stack.stop()
public final class ServiceStack<Runner: StackRunner>: Sendable {
    public let plan: StackPlan
    public let runner: Runner
    /// The settings each member was started with.
    public let variables: [StackMember: [String: String]]
    private let ports: [StackMember: [String: Int]]

    private init(plan: StackPlan, runner: Runner, variables: [StackMember: [String: String]], ports: [StackMember: [String: Int]]) {
        self.plan = plan
        self.runner = runner
        self.variables = variables
        self.ports = ports
    }

    /// Starts the plan's members in order, each wired to those before it; on a failure, stops those already
    /// started and throws.
    public static func start(_ plan: StackPlan, on runner: Runner) async throws -> ServiceStack {
        let members = StackMember.allCases.filter(plan.members.contains)
        var upstreams = plan.elsewhere
        var variables: [StackMember: [String: String]] = [:]
        var ports: [StackMember: [String: Int]] = [:]
        var statistics: [StackMember: String] = [:]
        do {
            try StackDevelopmentKeys.create(for: members, in: plan.dataDirectory)
            var portalKey: String?
            if members.contains(.portal) {
                portalKey = try await runner.preparePortalKey(
                    variables: StackWiring.variables(for: .portal, in: plan, upstreams: upstreams, portalKey: nil),
                    publicKeyFile: (plan.dataDirectory as NSString).appendingPathComponent(StackDevelopmentKeys.portalSigningPublicKey)
                )
            }
            for member in members {
                let settings = StackWiring.variables(for: member, in: plan, upstreams: upstreams, portalKey: portalKey, statistics: statistics)
                variables[member] = settings
                ports[member] = try await runner.start(member, variables: settings)
                if member.countsStatistics, let port = ports[member]?[ManagementRouter.listenerName] {
                    statistics[member] = "http://127.0.0.1:\(port)"
                }
                if member.hasInternalListener, let port = ports[member]?["internal"] {
                    let url = "http://127.0.0.1:\(port)"
                    upstreams[member] = try await plan.reroute[member]?(url) ?? url
                }
            }
        } catch {
            for member in ports.keys.sorted(by: >) { await runner.stop(member) }
            throw error
        }
        return ServiceStack(plan: plan, runner: runner, variables: variables, ports: ports)
    }

    /// Runs `body` with the plan's members started, and stops them afterwards, also when `body` throws.
    public static func withRunning<T: Sendable>(
        _ plan: StackPlan, on runner: Runner, _ body: (ServiceStack) async throws -> T
    ) async throws -> T {
        let stack = try await start(plan, on: runner)
        do {
            let result = try await body(stack)
            await stack.stop()
            return result
        } catch {
            await stack.stop()
            throw error
        }
    }

    /// The port of `member`'s listener named `listener`.
    public func port(_ member: StackMember, _ listener: String) -> Int {
        guard let port = ports[member]?[listener] else { preconditionFailure("\(member.rawValue) has no listener \(listener) in this stack") }
        return port
    }

    /// The port of each of `member`'s listeners, by listener name.
    public func ports(of member: StackMember) -> [String: Int] {
        ports[member] ?? [:]
    }

    /// `http://127.0.0.1:<port>` of `member`'s listener named `listener`.
    public func url(_ member: StackMember, _ listener: String) -> String {
        "http://127.0.0.1:\(port(member, listener))"
    }

    /// Stops every member, callers first: the portal and submission before verification, verification before
    /// test-result, so that nothing calls a service that has already gone.
    public func stop() async {
        for member in ports.keys.sorted(by: >) { await runner.stop(member) }
    }
}
