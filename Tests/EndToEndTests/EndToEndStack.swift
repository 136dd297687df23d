import Crypto
import ExposureCore
import ExposureStack
import ExposureTestSupport
import Foundation
import SQLKit

/// The services as separate processes, built executables wired by configuration only, on fresh databases of one
/// kind: what an operator deploys, minus the load balancer. They start through `ServiceStack`, as every stack does,
/// on a `ProcessRunner`.
final class EndToEndStack: Sendable {
    let directory: URL
    let stack: ServiceStack<ProcessRunner>
    let labID: String
    let labKey: String
    let officer: (user: String, password: String)
    let exportPublicKeyFile: URL

    /// Each listener's port: `verification` (apps), `verification-internal`, `verification-management`, and so on.
    var ports: [String: Int] {
        var ports: [String: Int] = [:]
        for member in StackMember.allCases {
            for (listener, port) in stack.ports(of: member) {
                ports[listener == member.publicListener ? member.rawValue : "\(member.rawValue)-\(listener)"] = port
            }
        }
        return ports
    }

    /// Each executable's environment, as its processes get it (a command run beside them, `healthcheck`, uses it too).
    var environments: [String: [String: String]] {
        Dictionary(uniqueKeysWithValues: StackMember.allCases.compactMap { member in
            (try? stack.runner.environment(of: member)).map { (member.executable, $0) }
        })
    }

    var databases: [String: DatabaseURL] {
        stack.plan.databases.reduce(into: [:]) { $0[$1.key.rawValue] = try? DatabaseURL(parsing: $1.value) }
    }

    var verification: String { stack.url(.verification, "app") }
    var verificationInternal: String { stack.url(.verification, "internal") }
    var testResultLabs: String { stack.url(.testResult, "lab") }
    var submission: String { stack.url(.submission, "app") }
    var portal: String { stack.url(.portal, "web") }

    private init(directory: URL, stack: ServiceStack<ProcessRunner>, labID: String, labKey: String, officer: (String, String), exportPublicKeyFile: URL) {
        self.directory = directory
        self.stack = stack
        self.labID = labID
        self.labKey = labKey
        self.officer = officer
        self.exportPublicKeyFile = exportPublicKeyFile
    }

    /// Starts test-result, verification, submission and portal on fresh databases of `kind` and runs `body`;
    /// stops them afterwards. `overrides` adds or replaces variables of one executable, e.g.
    /// `["submission-service": ["VERIFICATION_TIMEOUT": "3s"]]`.
    static func run(
        on kind: TestDatabase, overrides: [String: [String: String]] = [:], _ body: (EndToEndStack) async throws -> Void
    ) async throws {
        try await kind.withFreshDatabaseURLs(StackMember.allCases.count) { urls in
            try await run(databases: Dictionary(uniqueKeysWithValues: zip(StackMember.allCases.map(\.rawValue), urls)), overrides: overrides, body)
        }
    }

    /// The same on databases the caller provides (keys `testresult`, `verification`, `submission`, `portal`), e.g.
    /// on a server of the test's own that it may restart.
    static func run(
        databases: [String: DatabaseURL], overrides: [String: [String: String]] = [:], _ body: (EndToEndStack) async throws -> Void
    ) async throws {
        let stack = try await start(databases: databases, overrides: overrides)
        do {
            try await body(stack)
            await stack.stopAll()
        } catch {
            await stack.stopAll()
            throw error
        }
    }

    private static func start(databases: [String: DatabaseURL], overrides: [String: [String: String]]) async throws -> EndToEndStack {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let signingKey = P256.Signing.PrivateKey()
        let privateKeyFile = directory.appendingPathComponent("export-signing-key.pem")
        let publicKeyFile = directory.appendingPathComponent("export-signing-key.pub.pem")
        try SecretFile.write(signingKey.pemRepresentation, to: privateKeyFile)
        try signingKey.publicKey.pemRepresentation.write(to: publicKeyFile, atomically: true, encoding: .utf8)

        var plan = StackPlan(
            databases: databases.reduce(into: [:]) { $0[StackMember(rawValue: $1.key)!] = $1.value.connectionString },
            tokens: TestStack.tokens,
            dataDirectory: directory.path,
            variables: [
                .verification: ["TESTRESULT_TIMEOUT": "2s", "TELETAN_HASH_KEYS": TestServices.teleTANHashKeys],
                .submission: [
                    "VERIFICATION_TIMEOUT": "2s", "EXPORT_DIR": directory.appendingPathComponent("exports").path,
                    "SIGNING_KEY_FILE": privateKeyFile.path, "SERVE_EXPORTS": "true",
                    "DISTRIBUTION_INTERVAL": "2s", "DISTRIBUTION_INCLUDE_INCOMPLETE_HOURS": "true", "SHIFTING_THRESHOLD": "1",
                ],
                .portal: ["BCRYPT_COST": "4"],
            ]
        )
        for (executable, variables) in overrides {
            plan.set(StackMember(rawValue: String(executable.dropLast("-service".count)))!, variables)
        }
        // Every process has the service tokens of the tests: the internal listeners accept them, callers present theirs.
        let runner = ProcessRunner(base: TestServiceTokens.serviceDefaults.merging(["LOG_LEVEL": "info"]) { $1 })
        // Names of this stack's own, so that a stack can start on databases another one used (a restored backup).
        let suffix = UUID().uuidString.prefix(8).lowercased()
        let officerName = "e2e-officer-\(suffix)", labID = "e2e-lab-\(suffix)"
        let stack = try await ServiceStack.start(plan, on: runner)
        do {
            let portalEnvironment = try runner.environment(of: .portal)
            let officerOutput = try await ServiceProcess.run("portal-service", ["users", "add", officerName, "--roles", "c19hotline"], environment: portalEnvironment)
            guard officerOutput.status == 0, let passwordLine = officerOutput.output.split(separator: "\n").first(where: { $0.contains("shown only once") }),
                  let password = passwordLine.split(separator: " ").last else {
                throw ServiceProcessError.exited("portal-service users add", officerOutput.status, officerOutput.output)
            }
            let labs = try await ServiceProcess.run("testresult-service", ["labs", "add", labID], environment: try runner.environment(of: .testResult))
            guard labs.status == 0, let key = labs.output.split(whereSeparator: \.isWhitespace).first(where: { $0.hasPrefix("lab_") && $0.count == 47 }) else {
                throw ServiceProcessError.exited("testresult-service labs add", labs.status, labs.output)
            }
            return EndToEndStack(
                directory: directory, stack: stack, labID: labID, labKey: String(key),
                officer: (officerName, String(password)), exportPublicKeyFile: publicKeyFile
            )
        } catch {
            await stack.stop()
            throw error
        }
    }

    /// What `exposure-suite demo` needs to tell the whole story against this stack.
    var demoEnvironment: [String: String] {
        [
            "DEMO_VERIFICATION_URL": verification,
            "DEMO_TESTRESULT_URL": testResultLabs,
            "DEMO_SUBMISSION_URL": submission,
            "DEMO_LAB_API_KEY": labKey,
            "DEMO_PORTAL_URL": portal,
            "DEMO_OFFICER_USER": officer.user,
            "DEMO_OFFICER_PASSWORD": officer.password,
            "DEMO_EXPORT_PUBLIC_KEY_FILE": exportPublicKeyFile.path,
        ]
    }

    /// Starts one service again (after `kill`) with the environment it had, and waits until it answers.
    func start(_ executable: String) async throws {
        try await stack.runner.restart(Self.member(executable))
    }

    func kill(_ executable: String) {
        stack.runner.kill(Self.member(executable))
    }

    func stopAll() async {
        await stack.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Every log line the services wrote.
    var logs: String { stack.runner.logs }

    private static func member(_ executable: String) -> StackMember {
        StackMember.allCases.first { $0.executable == executable }!
    }

    func storedKeys() async throws -> Int {
        let database = try await Database.connect(databases["submission"]!, poolSize: 1, logger: TestLogger.quiet)
        do {
            let count = try await database.withConnection { try await $0.raw("SELECT COUNT(*) AS n FROM diagnosis_keys").first()!.decode(column: "n", as: Int.self) }
            await database.shutdown()
            return count
        } catch {
            await database.shutdown()
            throw error
        }
    }
}
