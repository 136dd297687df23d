import ExposureCore
import ExposureStack
import TestResult
import Foundation
import Synchronization

/// The services of a test, started through the one way every stack starts (`ServiceStack`): in this process, on
/// free ports and fresh databases, with the tests' service tokens and one manual clock.
public enum TestStack {
    /// The tests' tokens (`TestServiceTokens`): each caller presents its own, and every internal listener also
    /// accepts the tests' own token.
    public static let tokens = StackTokens(
        submissionToVerification: TestServiceTokens.submission, portalToVerification: TestServiceTokens.portal,
        verificationToTestResult: TestServiceTokens.verification, portalToTestResult: TestServiceTokens.portalToTestResult,
        alsoAccepted: ["tests": TestServiceTokens.tests],
        statisticsReaders: ["portal": TestServiceTokens.portalStatistics, "tests": TestServiceTokens.statisticsReader]
    )

    /// A runner with the tests' settings defaults (`TestServices.settings`) and `clock` in every member; each
    /// member draws from its own random source, seeded from `seed` when given (random otherwise), and records the
    /// hours it publishes in `hours`.
    public static func runner(clock: ManualClock, seed: UInt64? = nil, hours: PublishedHours = PublishedHours()) -> InProcessRunner {
        InProcessRunner(
            settings: { _, variables in TestServices.settings(variables) },
            environment: { member in
                var environment = TestServices.environment(
                    clock: clock, seed: seed.map { $0 &+ UInt64(member.rawValue.count) } ?? UInt64.random(in: 0...UInt64.max))
                environment.publishHour = hours.publisher(for: member)
                return environment
            },
            logger: TestLogger.quiet
        )
    }

    /// Runs `body` with `members` started on fresh databases of `kind`, listening on free ports of 127.0.0.1.
    /// `configure` adds the test's own settings to the plan; each of `proxies` stands in front of its member's
    /// internal listener; `hours` records the hourly counts the members publish. The data directory is a fresh
    /// temporary one, removed afterwards.
    public static func withRunning<T: Sendable>(
        _ members: [StackMember],
        on kind: TestDatabase,
        clock: ManualClock,
        seed: UInt64? = nil,
        hours: PublishedHours = PublishedHours(),
        proxies: [StackMember: AnswerDroppingProxy] = [:],
        configure: (inout StackPlan) throws -> Void = { _ in },
        _ body: (ServiceStack<InProcessRunner>) async throws -> T
    ) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stack-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await kind.withFreshDatabaseURLs(members.count) { urls in
            var plan = StackPlan(
                members: members,
                databases: Dictionary(uniqueKeysWithValues: zip(members, urls.map(\.connectionString))),
                tokens: tokens,
                dataDirectory: directory.path,
                variables: Dictionary(uniqueKeysWithValues: members.map { member in
                    // Free ports: the stack wires each member to the ports the ones before it were given.
                    (member, Dictionary(uniqueKeysWithValues: member.listeners.map { ($0.variable, "0") }))
                })
            )
            try configure(&plan)
            // Each proxy starts in front of its member's internal listener as soon as that is up, and the members
            // called through it reach it instead; the proxies stop after the stack.
            let running = Mutex<[RunningServices]>([])
            for (member, proxy) in proxies {
                plan.reroute[member] = { url in
                    let port = Int(url.split(separator: ":").last!)!
                    let started = await RunningServices.start([proxy.bundle(upstreamPort: port)], logger: TestLogger.quiet)
                    running.withLock { $0.append(started) }
                    return "http://127.0.0.1:\(await started.bundle(proxy.name).port(proxy.listener))"
                }
            }
            do {
                let result = try await ServiceStack.withRunning(plan, on: runner(clock: clock, seed: seed, hours: hours), body)
                for proxy in running.withLock({ $0 }) { await proxy.stop() }
                return result
            } catch {
                for proxy in running.withLock({ $0 }) { await proxy.stop() }
                throw error
            }
        }
    }
}

extension ServiceStack {
    /// A client for `member`'s listener `listener`; on an internal listener it presents, per route, the token of
    /// the service that calls it (`TestServiceTokens.token(forInternalPath:)`).
    public func client(_ member: StackMember, _ listener: String) -> TestHTTPClient {
        var client = TestHTTPClient(port: port(member, listener))
        if listener == "internal" { client.serviceToken = { TestServiceTokens.token(forInternalPath: $0) } }
        return client
    }

    /// A client for `member`'s management listener (`/metrics`, `/health/ready`).
    public func management(_ member: StackMember) -> TestHTTPClient {
        TestHTTPClient(port: port(member, ManagementRouter.listenerName))
    }
}

extension TestDatabase {
    /// `count` fresh databases of this kind, dropped afterwards.
    public func withFreshDatabaseURLs<T: Sendable>(_ count: Int, _ body: ([DatabaseURL]) async throws -> T) async throws -> T {
        guard count > 0 else { return try await body([]) }
        return try await withFreshDatabaseURL { first in
            try await withFreshDatabaseURLs(count - 1) { rest in try await body([first] + rest) }
        }
    }
}

extension StackPlan {
    /// Adds `variables` to `member`'s own settings (they win over the wiring and earlier ones).
    public mutating func set(_ member: StackMember, _ variables: [String: String]) {
        self.variables[member, default: [:]].merge(variables) { $1 }
    }
}

extension ServiceStack {
    /// A connection pool on `member`'s database, for a test that reads or writes rows itself; shut it down after.
    public func connect(_ member: StackMember, poolSize: Int = 2) async throws -> Database {
        guard let url = plan.databases[member] else { preconditionFailure("\(member.rawValue) has no database in this stack") }
        return try await Database.connect(try DatabaseURL(parsing: url), poolSize: poolSize, logger: TestLogger.quiet)
    }

    /// Registers a lab at test-result, as `testresult-service labs add` does, and answers its API key.
    public func addLab(_ id: String, clock: ManualClock) async throws -> String {
        let configuration = try TestResultConfiguration(TestServices.settings(variables[.testResult] ?? [:]))
        return try await TestResultAdmin.addLab(id, configuration: configuration, environment: TestServices.environment(clock: clock))
    }
}
