import ExposureCore
import Crypto
import Foundation
import Logging
import Portal
import Submission
import TestResult
import Verification

/// `exposure-suite`: the four services in one process on SQLite, for a first look, development and the demo.
///
/// Nothing here is special to the suite: each service is built exactly as its own executable builds it, from
/// its own configuration type, and the services talk to each other over HTTP on localhost.
enum SuiteLauncher {
    struct Services {
        var bundles: [ServiceBundle]
        var rows: [(service: String, listener: String, url: String)]
        var credentials: [String: String]
        var exportPublicKeyPEM: String
        var endpoints: DemoStory.Endpoints
    }

    static func serve(environment: [String: String]) async throws {
        let logger = Logger(label: "exposure.suite")
        let layout = try SuiteLayout(environment: environment)
        let services = try await makeServices(layout: layout, environment: ServiceEnvironment(logger: logger), logger: logger)
        let running = await RunningServices.start(services.bundles, logger: logger, shutdownSignals: [.sigterm, .sigint])
        print(banner(services, layout: layout))
        try await running.wait()
    }

    static func makeServices(layout: SuiteLayout, environment: ServiceEnvironment, logger: Logger) async throws -> Services {
        let credentials = FirstRunCredentials(layout: layout)
        let tokens = try credentials.serviceTokens(random: environment.random)
        // test-result, answering verification on its internal listener
        let testResult = try TestResultConfiguration(layout.settings(for: "TESTRESULT", defaults: [
            "DATABASE_URL": layout.database("testresult"),
            "INTERNAL_API_TOKENS": "verification=\(tokens.verificationToTestResult)",
        ]))
        // verification, asking test-result on localhost and trusting the portal's signing key; teleTANs are stored
        // under a key made on first start and kept in the data directory (mode 0600)
        let teleTANHashKeysFile = layout.path("teletan-hash-keys")
        try SecretHashKey.createKeyFileIfMissing(at: teleTANHashKeysFile, id: "suite", random: environment.random)
        let verificationPort = try layout.settings(for: "VERIFICATION", defaults: [:]).port("INTERNAL_PORT", default: 8011)
        let portal = try PortalConfiguration(layout.settings(for: "PORTAL", defaults: [
            "DATABASE_URL": layout.database("portal"),
            "DATA_DIR": layout.dataDirectory.path,
            "VERIFICATION_URL": "http://127.0.0.1:\(verificationPort)",
            "VERIFICATION_API_TOKEN": tokens.portalToVerification,
            "HEALTH_AUTHORITIES": "10001=Demo health authority",
        ]))
        let portalKey = try PortalSigningKey.load(portal)
        let portalPublicKeyFile: String
        if let file = portalKey.publicKeyFile {
            portalPublicKeyFile = file
        } else {
            portalPublicKeyFile = layout.path("portal-signing-key.pub.pem")
            try portalKey.publicKeyPEM.write(toFile: portalPublicKeyFile, atomically: true, encoding: .utf8)
        }
        let verification = try VerificationConfiguration(layout.settings(for: "VERIFICATION", defaults: [
            "DATABASE_URL": layout.database("verification"),
            "TESTRESULT_URL": "http://127.0.0.1:\(testResult.internalListener.port)",
            "TESTRESULT_API_TOKEN": tokens.verificationToTestResult,
            "INTERNAL_API_TOKENS": "submission=\(tokens.submissionToVerification),portal=\(tokens.portalToVerification)",
            "JWT_PUBLIC_KEY_FILES": "\(portalPublicKeyFile)|\(portal.tokenIssuer)|\(portal.tokenAudience)",
            "TELETAN_HASH_KEYS_FILE": teleTANHashKeysFile,
        ]))
        // submission, spending TANs at verification, with the distribution job on a short schedule, publishing
        // the running hour (development only) and serving the export tree
        let submission = try SubmissionConfiguration(layout.settings(for: "SUBMISSION", defaults: [
            "DATABASE_URL": layout.database("submission"),
            "VERIFICATION_URL": "http://127.0.0.1:\(verification.internalListener.port)",
            "VERIFICATION_API_TOKEN": tokens.submissionToVerification,
            "DATA_DIR": layout.dataDirectory.path,
            "EXPORT_DIR": layout.path("exports"),
            "DISTRIBUTION_INTERVAL": "5s",
            "DISTRIBUTION_INCLUDE_INCOMPLETE_HOURS": "true",
            "SHIFTING_THRESHOLD": "1",
        ]), serveExportsByDefault: true)

        var secrets = try credentials.read()
        if secrets["LAB_API_KEY"] == nil {
            let labKey = try await TestResultAdmin.addLab("dev-lab", configuration: testResult, environment: environment)
            let password = Codes.uuidV4(using: environment.random)
            _ = try await PortalAdmin.users(
                ["add", "officer", "--roles", "c19hotline,c19hotline_event"], configuration: portal, environment: environment,
                password: { password }
            )
            let created = [("LAB_ID", "dev-lab"), ("LAB_API_KEY", labKey), ("OFFICER_USER", "officer"), ("OFFICER_PASSWORD", password)]
            try credentials.add(created)
            secrets.merge(created) { $1 }
            print(firstRunNotice(created, file: credentials.file))
        }

        var bundles: [ServiceBundle] = []
        do {
            bundles.append(try await TestResultService.makeBundle(testResult, environment: environment))
            bundles.append(try await VerificationService.makeBundle(verification, environment: environment))
            bundles.append(try await SubmissionService.makeBundle(submission, environment: environment))
            bundles.append(try await PortalService.makeBundle(portal, environment: environment))
        } catch {
            for bundle in bundles { await bundle.close() }
            throw error
        }
        let host = layout.bindHost == "0.0.0.0" ? "localhost" : layout.bindHost
        let rows: [(String, String, String)] = [
            ("verification", "apps", "http://\(host):\(verification.appListener.port)"),
            ("verification", "internal", "http://127.0.0.1:\(verification.internalListener.port)"),
            ("verification", "management", "http://127.0.0.1:\(verification.common.managementListener.port)"),
            ("test-result", "labs", "http://\(host):\(testResult.labListener.port)"),
            ("test-result", "internal", "http://127.0.0.1:\(testResult.internalListener.port)"),
            ("test-result", "management", "http://127.0.0.1:\(testResult.common.managementListener.port)"),
            ("submission", "apps", "http://\(host):\(submission.listener.port)"),
            ("submission", "management", "http://127.0.0.1:\(submission.common.managementListener.port)"),
            ("portal", "officers", "http://\(host):\(portal.listener.port)"),
            ("portal", "management", "http://127.0.0.1:\(portal.common.managementListener.port)"),
            ("export tree", "CDN origin", "http://\(host):\(submission.listener.port)/version/v1/diagnosis-keys/country/DE/date"),
        ]
        return Services(
            bundles: bundles, rows: rows, credentials: secrets,
            exportPublicKeyPEM: try SubmissionService.exportPublicKeyPEM(submission, logger: logger),
            endpoints: DemoStory.Endpoints(
                verification: "http://127.0.0.1:\(verification.appListener.port)",
                testResultLabs: "http://127.0.0.1:\(testResult.labListener.port)",
                submission: "http://127.0.0.1:\(submission.listener.port)",
                portal: "http://127.0.0.1:\(portal.listener.port)"
            )
        )
    }

    /// `exposure-suite demo`: uses the suite running at the default ports, or starts one in this process. With
    /// `DEMO_VERIFICATION_URL` set it runs against services deployed elsewhere instead (the end-to-end tests do),
    /// given `DEMO_TESTRESULT_URL`, `DEMO_SUBMISSION_URL`, `DEMO_LAB_API_KEY` and `DEMO_EXPORT_PUBLIC_KEY_FILE`.
    static func demo(environment: [String: String]) async throws {
        if let verification = environment["DEMO_VERIFICATION_URL"] {
            func required(_ name: String) throws -> String {
                guard let value = environment[name], !value.isEmpty else { throw ConfigurationError(variable: name, reason: "is required with DEMO_VERIFICATION_URL") }
                return value
            }
            let keyFile = try required("DEMO_EXPORT_PUBLIC_KEY_FILE")
            let story = DemoStory(
                endpoints: DemoStory.Endpoints(
                    verification: verification, testResultLabs: try required("DEMO_TESTRESULT_URL"),
                    submission: try required("DEMO_SUBMISSION_URL"), portal: environment["DEMO_PORTAL_URL"] ?? ""
                ),
                credentials: [
                    "LAB_API_KEY": try required("DEMO_LAB_API_KEY"),
                    "OFFICER_USER": environment["DEMO_OFFICER_USER"], "OFFICER_PASSWORD": environment["DEMO_OFFICER_PASSWORD"],
                ].compactMapValues { $0 },
                credentialsSource: "DEMO_LAB_API_KEY",
                exportPublicKey: try P256.Signing.PublicKey(pemRepresentation: String(contentsOfFile: keyFile, encoding: .utf8))
            )
            try await story.runTestStory()
            if story.credentials["OFFICER_USER"] != nil { try await story.runTeleTANStory() }
            print("\nEvery step held.")
            return
        }
        var logger = Logger(label: "exposure.suite")
        logger.logLevel = .warning
        let layout = try SuiteLayout(environment: environment)
        let services = try await makeServices(layout: layout, environment: ServiceEnvironment(logger: logger), logger: logger)
        let alreadyRunning = await DemoClient().isLive(services.endpoints.verification)
        var running: RunningServices?
        if alreadyRunning {
            for bundle in services.bundles { await bundle.close() }
            print("Using the suite already running (data in \(layout.dataDirectory.path)).\n")
        } else {
            running = await RunningServices.start(services.bundles, logger: logger)
            print("Started the suite in this process (data in \(layout.dataDirectory.path)).\n")
        }
        let story = DemoStory(
            endpoints: services.endpoints,
            credentials: services.credentials,
            credentialsSource: alreadyRunning
                ? "\(layout.path("credentials.txt")); a suite already running keeps its own, so give the demo the DATA_DIR that suite was started with"
                : layout.path("credentials.txt"),
            exportPublicKey: try P256.Signing.PublicKey(pemRepresentation: services.exportPublicKeyPEM)
        )
        do {
            try await story.runTestStory()
            try await story.runTeleTANStory()
            await running?.stop()
            print("\nEvery step held.")
        } catch {
            await running?.stop()
            throw error
        }
    }

    static func banner(_ services: Services, layout: SuiteLayout) -> String {
        let width = services.rows.map { $0.service.count + $0.listener.count + 3 }.max() ?? 0
        let lines = services.rows.map { row in
            "  " + "\(row.service) (\(row.listener))".padding(toLength: width, withPad: " ", startingAt: 0) + "  " + row.url
        }
        return """

            ExposureSuite is running (data in \(layout.dataDirectory.path)):
            \(lines.joined(separator: "\n"))
              every listener answers /health/live; /health/ready and /metrics are on the management listeners
              internal listeners want X-Service-Token: the *_TOKEN lines of the credentials file

            Credentials: \(layout.path("credentials.txt"))
            Try it:      swift run exposure-suite demo     (in another terminal)
            Stop:        Ctrl-C (or SIGTERM): requests in flight finish, then everything closes.

            """
    }

    static func firstRunNotice(_ created: [(String, String)], file: URL) -> String {
        let lines = created.map { "  \($0.0) = \($0.1)" }
        return """

            First start: created development credentials (shown once; also in \(file.path), mode 0600):
            \(lines.joined(separator: "\n"))
            """
    }
}
