import Crypto
import ExposureCore
import ExposureTestSupport
import Foundation
import SQLKit

/// The services as separate processes, built executables wired by configuration only, on fresh databases of one
/// kind: what an operator deploys, minus the load balancer.
final class EndToEndStack: @unchecked Sendable {
    let directory: URL
    let ports: [String: Int]
    let databases: [String: DatabaseURL]
    let labID: String
    let labKey: String
    let officer: (user: String, password: String)
    let exportPublicKeyFile: URL
    private(set) var processes: [String: ServiceProcess] = [:]
    /// Each executable's environment, as its processes get it (a command run beside them, `healthcheck`, uses it too).
    let environments: [String: [String: String]]

    var verification: String { "http://127.0.0.1:\(ports["verification"]!)" }
    var verificationInternal: String { "http://127.0.0.1:\(ports["verification-internal"]!)" }
    var testResultLabs: String { "http://127.0.0.1:\(ports["testresult"]!)" }
    var submission: String { "http://127.0.0.1:\(ports["submission"]!)" }
    var portal: String { "http://127.0.0.1:\(ports["portal"]!)" }

    private init(
        directory: URL, ports: [String: Int], databases: [String: DatabaseURL], labID: String, labKey: String, officer: (String, String),
        exportPublicKeyFile: URL, environments: [String: [String: String]]
    ) {
        self.directory = directory
        self.ports = ports
        self.databases = databases
        self.labID = labID
        self.labKey = labKey
        self.officer = officer
        self.exportPublicKeyFile = exportPublicKeyFile
        self.environments = environments
    }

    /// Starts test-result, verification, submission and portal on fresh databases of `kind` and runs `body`;
    /// stops them afterwards. `overrides` adds or replaces variables of one executable, e.g.
    /// `["submission-service": ["VERIFICATION_TIMEOUT": "3s"]]`.
    static func run(
        on kind: TestDatabase, overrides: [String: [String: String]] = [:], _ body: (EndToEndStack) async throws -> Void
    ) async throws {
        try await kind.withFreshDatabaseURL { testResultDB in
            try await kind.withFreshDatabaseURL { verificationDB in
                try await kind.withFreshDatabaseURL { submissionDB in
                    try await kind.withFreshDatabaseURL { portalDB in
                        try await run(databases: [
                            "testresult": testResultDB, "verification": verificationDB, "submission": submissionDB, "portal": portalDB,
                        ], overrides: overrides, body)
                    }
                }
            }
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
            stack.stopAll()
        } catch {
            stack.stopAll()
            throw error
        }
    }

    private static func start(databases: [String: DatabaseURL], overrides: [String: [String: String]]) async throws -> EndToEndStack {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let signingKey = P256.Signing.PrivateKey()
        let privateKeyFile = directory.appendingPathComponent("export-signing-key.pem")
        let publicKeyFile = directory.appendingPathComponent("export-signing-key.pub.pem")
        try signingKey.pemRepresentation.write(to: privateKeyFile, atomically: true, encoding: .utf8)
        try signingKey.publicKey.pemRepresentation.write(to: publicKeyFile, atomically: true, encoding: .utf8)

        var ports: [String: Int] = [:]
        for name in ["testresult", "testresult-internal", "verification", "verification-internal", "submission", "portal"] {
            ports[name] = ServiceProcess.freePort()
        }
        for service in ["testresult", "verification", "submission", "portal"] {
            ports[service + "-management"] = ServiceProcess.freePort()
        }
        // Every process has the service tokens of the tests: the internal listeners accept them, callers present theirs.
        let base = TestServiceTokens.serviceDefaults.merging(["BIND_HOST": "127.0.0.1", "LOG_LEVEL": "info"]) { $1 }
        // The portal's signing key first: verification is configured to trust its public key.
        let portalEnvironment = base.merging([
            "DATABASE_URL": databases["portal"]!.connectionString, "PORT": "\(ports["portal"]!)",
            "MANAGEMENT_PORT": "\(ports["portal-management"]!)", "VERIFICATION_API_TOKEN": TestServiceTokens.portal,
            "VERIFICATION_URL": "http://127.0.0.1:\(ports["verification-internal"]!)", "DATA_DIR": directory.path, "BCRYPT_COST": "4",
        ]) { $1 }
        let signing = try ServiceProcess.run("portal-service", ["signing-key"], environment: portalEnvironment)
        guard signing.status == 0, let portalPublicKey = signing.output.split(separator: "\n").last(where: { $0.hasSuffix(".pub.pem") }) else {
            throw ServiceProcessError.exited("portal-service signing-key", signing.status, signing.output)
        }
        // Names of this stack's own, so that a stack can start on databases another one used (a restored backup).
        let suffix = UUID().uuidString.prefix(8).lowercased()
        let officerName = "e2e-officer-\(suffix)", labID = "e2e-lab-\(suffix)"
        let officerOutput = try ServiceProcess.run("portal-service", ["users", "add", officerName, "--roles", "c19hotline"], environment: portalEnvironment)
        guard officerOutput.status == 0, let passwordLine = officerOutput.output.split(separator: "\n").first(where: { $0.contains("shown only once") }),
              let password = passwordLine.split(separator: " ").last else {
            throw ServiceProcessError.exited("portal-service users add", officerOutput.status, officerOutput.output)
        }
        var environments: [String: [String: String]] = [
            "portal-service": portalEnvironment,
            "testresult-service": base.merging([
                "DATABASE_URL": databases["testresult"]!.connectionString,
                "PORT": "\(ports["testresult"]!)", "INTERNAL_PORT": "\(ports["testresult-internal"]!)",
                "MANAGEMENT_PORT": "\(ports["testresult-management"]!)",
            ]) { $1 },
            "verification-service": base.merging([
                "DATABASE_URL": databases["verification"]!.connectionString,
                "PORT": "\(ports["verification"]!)", "INTERNAL_PORT": "\(ports["verification-internal"]!)",
                "MANAGEMENT_PORT": "\(ports["verification-management"]!)",
                "TESTRESULT_URL": "http://127.0.0.1:\(ports["testresult-internal"]!)", "TESTRESULT_TIMEOUT": "2s",
                "JWT_PUBLIC_KEY_FILES": "\(portalPublicKey)|exposuresuite-portal|exposuresuite-verification", "TELETAN_HASH_KEYS": TestServices.teleTANHashKeys,
            ]) { $1 },
            "submission-service": base.merging([
                "DATABASE_URL": databases["submission"]!.connectionString, "PORT": "\(ports["submission"]!)",
                "MANAGEMENT_PORT": "\(ports["submission-management"]!)",
                "VERIFICATION_URL": "http://127.0.0.1:\(ports["verification-internal"]!)", "VERIFICATION_TIMEOUT": "2s",
                "DATA_DIR": directory.path, "EXPORT_DIR": directory.appendingPathComponent("exports").path,
                "SIGNING_KEY_FILE": privateKeyFile.path, "SERVE_EXPORTS": "true",
                "DISTRIBUTION_INTERVAL": "2s", "DISTRIBUTION_INCLUDE_INCOMPLETE_HOURS": "true", "SHIFTING_THRESHOLD": "1",
            ]) { $1 },
        ]
        for (executable, variables) in overrides {
            environments[executable, default: base].merge(variables) { $1 }
        }
        let labs = try ServiceProcess.run("testresult-service", ["labs", "add", labID], environment: environments["testresult-service"]!)
        guard labs.status == 0, let key = labs.output.split(whereSeparator: \.isWhitespace).first(where: { $0.hasPrefix("lab_") && $0.count == 47 }) else {
            throw ServiceProcessError.exited("testresult-service labs add", labs.status, labs.output)
        }
        let stack = EndToEndStack(
            directory: directory, ports: ports, databases: databases, labID: labID, labKey: String(key),
            officer: (officerName, String(password)), exportPublicKeyFile: publicKeyFile,
            environments: environments
        )
        do {
            try await stack.start("testresult-service", readyAt: stack.testResultLabs)
            try await stack.start("verification-service", readyAt: stack.verification)
            try await stack.start("submission-service", readyAt: stack.submission)
            try await stack.start("portal-service", readyAt: stack.portal)
        } catch {
            stack.stopAll()
            throw error
        }
        return stack
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

    /// (Re)starts one service and waits until it is ready.
    func start(_ executable: String, readyAt baseURL: String) async throws {
        let process = try ServiceProcess(executable, environment: environments[executable]!)
        processes[executable] = process
        try await process.waitUntilReady(baseURL + "/health/live")
    }

    func kill(_ executable: String) {
        processes[executable]?.kill()
    }

    func stopAll() {
        for process in processes.values { process.stop() }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Every log line the services wrote.
    var logs: String { processes.values.map(\.log).joined(separator: "\n") }

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
