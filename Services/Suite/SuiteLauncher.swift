import Crypto
import ExposureCore
import ExposureStack
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
        var stack: ServiceStack<InProcessRunner>
        var rows: [(service: String, listener: String, url: String)]
        var credentials: [String: String]
        var exportPublicKeyPEM: String
        var endpoints: DemoStory.Endpoints
    }

    static func serve(environment: [String: String]) async throws {
        let logger = Logger(label: "exposure.suite")
        let layout = try SuiteLayout(environment: environment)
        let services = try await startServices(layout: layout, environment: ServiceEnvironment(logger: logger), logger: logger)
        print(banner(services, layout: layout))
        await services.stack.runner.waitForShutdown(of: services.stack)
    }

    /// What the suite starts: every service on SQLite files under `DATA_DIR`, at the default ports.
    static func plan(layout: SuiteLayout, tokens: SuiteServiceTokens, random: any RandomSource) throws -> StackPlan {
        // teleTANs are stored under a key made on first start and kept in the data directory (mode 0600)
        let teleTANHashKeysFile = layout.path("teletan-hash-keys")
        try SecretHashKey.createKeyFileIfMissing(at: teleTANHashKeysFile, id: "suite", random: random)
        // The LEMON family on, with development keys kept beside the data (`SuiteLemonKeys`)
        let lemon = try SuiteLemonKeys.settings(layout: layout, random: random)
        // The other development keys (export signing, the portal's, CovidShield's): the stack's, made here already
        // because commands read the services' settings before the stack starts.
        let made = try StackDevelopmentKeys.create(for: StackMember.allCases, in: layout.dataDirectory.path)
        if !made.isEmpty {
            print("Made development keys in \(layout.dataDirectory.path) (mode 0600; for development only, a service never makes keys of its own): \(made.joined(separator: ", "))")
        }
        return StackPlan(
            databases: Dictionary(uniqueKeysWithValues: StackMember.allCases.map { ($0, layout.database($0.rawValue)) }),
            tokens: StackTokens(
                submissionToVerification: tokens.submissionToVerification, portalToVerification: tokens.portalToVerification,
                verificationToTestResult: tokens.verificationToTestResult, portalToTestResult: tokens.portalToTestResult,
                statisticsReaders: ["portal": tokens.portalStatistics]
            ),
            dataDirectory: layout.dataDirectory.path,
            bindHost: layout.bindHost,
            variables: [
                // Every app family on (LEMON through its keys below).
                .verification: ["TELETAN_HASH_KEYS_FILE": teleTANHashKeysFile, "COVIDSHIELD_ENABLED": "true", "PROTEGO_ENABLED": "true", "ENX_ENABLED": "true"],
                // the distribution job on a short schedule, publishing the running hour (development only)
                .submission: [
                    "EXPORT_DIR": layout.path("exports"),
                    "DISTRIBUTION_INTERVAL": "5s",
                    "DISTRIBUTION_INCLUDE_INCOMPLETE_HOURS": "true",
                    "SHIFTING_THRESHOLD": "1",
                    "COVIDSHIELD_ENABLED": "true",
                    "PROTEGO_ENABLED": "true",
                ].merging(lemon) { $1 },
                // The other app families' codes beside the teleTAN, for their demo stories.
                .portal: ["HEALTH_AUTHORITIES": "10001=Demo health authority", "ONE_TIME_CODE_KINDS": "covidshield,protego"],
            ]
        )
    }

    /// A member's settings as the suite reads them: the plan's, then any `<SERVICE>_*` variable of the process.
    static func settingsReader(_ layout: SuiteLayout) -> InProcessRunner.SettingsReader {
        { member, variables in layout.settings(for: member.environmentPrefix, defaults: variables) }
    }

    static func startServices(layout: SuiteLayout, environment: ServiceEnvironment, logger: Logger) async throws -> Services {
        let credentials = FirstRunCredentials(layout: layout)
        let tokens = try credentials.serviceTokens(random: environment.random)
        let plan = try plan(layout: layout, tokens: tokens, random: environment.random)
        let settings = settingsReader(layout)
        let secrets = try await firstRunCredentials(credentials, plan: plan, settings: settings, environment: environment)
        let stack = try await ServiceStack.start(plan, on: InProcessRunner(
            settings: settings, environment: { _ in environment }, logger: logger, serveExportsByDefault: true
        ))
        let host = layout.bindHost == "0.0.0.0" ? "localhost" : layout.bindHost
        let rows: [(String, String, String)] = [
            ("verification", "apps", "http://\(host):\(stack.port(.verification, "app"))"),
            ("verification", "internal", stack.url(.verification, "internal")),
            ("verification", "issuers", stack.url(.verification, VerificationService.issuerListener)),
            ("verification", "management", stack.url(.verification, ManagementRouter.listenerName)),
            ("test-result", "labs", "http://\(host):\(stack.port(.testResult, "lab"))"),
            ("test-result", "internal", stack.url(.testResult, "internal")),
            ("test-result", "management", stack.url(.testResult, ManagementRouter.listenerName)),
            ("submission", "apps", "http://\(host):\(stack.port(.submission, "app"))"),
            ("submission", "management", stack.url(.submission, ManagementRouter.listenerName)),
            ("portal", "officers", "http://\(host):\(stack.port(.portal, "web"))"),
            ("portal", "management", stack.url(.portal, ManagementRouter.listenerName)),
            ("export tree", "CDN origin", "http://\(host):\(stack.port(.submission, "app"))/version/v1/diagnosis-keys/country/DE/date"),
        ]
        return Services(
            stack: stack, rows: rows, credentials: secrets,
            exportPublicKeyPEM: try exportPublicKeyPEM(plan: plan, settings: settings),
            endpoints: DemoStory.Endpoints(
                verification: stack.url(.verification, "app"), verificationIssuer: stack.url(.verification, VerificationService.issuerListener),
                testResultLabs: stack.url(.testResult, "lab"),
                submission: stack.url(.submission, "app"), portal: stack.url(.portal, "web")
            )
        )
    }

    /// On first start, a lab, an officer and a supervisor, written to the credentials file; later, what that file
    /// holds (a data directory of an older version, which had no supervisor, gets one at its next start).
    static func firstRunCredentials(
        _ credentials: FirstRunCredentials, plan: StackPlan, settings: InProcessRunner.SettingsReader, environment: ServiceEnvironment
    ) async throws -> [String: String] {
        var secrets = try credentials.read()
        var created: [(String, String)] = []
        let portal = try PortalConfiguration(settings(.portal, plan.settings(of: .portal)))
        func addAccount(_ name: String, roles: String) async throws -> String {
            let password = Codes.uuidV4(using: environment.random)
            _ = try await PortalAdmin.users(["add", name, "--roles", roles], configuration: portal, environment: environment, password: { password })
            return password
        }
        if secrets["LAB_API_KEY"] == nil {
            let testResult = try TestResultConfiguration(settings(.testResult, plan.settings(of: .testResult)))
            let labKey = try await TestResultAdmin.addLab("dev-lab", configuration: testResult, environment: environment)
            let password = try await addAccount("officer", roles: "c19hotline,c19hotline_event")
            created += [("LAB_ID", "dev-lab"), ("LAB_API_KEY", labKey), ("OFFICER_USER", "officer"), ("OFFICER_PASSWORD", password)]
        }
        // A supervisor, to see the officers, audit and statistics pages: its first sign-in sets up two-factor sign-in
        // (an authenticator app's QR code), as every supervisor's does in production.
        if secrets["SUPERVISOR_USER"] == nil {
            let password = try await addAccount("supervisor", roles: "c19hotline,c19hotline_event,c19supervisor")
            created += [("SUPERVISOR_USER", "supervisor"), ("SUPERVISOR_PASSWORD", password)]
        }
        // A second health authority beside `default`, with an officer of its own: the demo shows that each
        // authority's officers issue within it and that neither authority's log shows the other's.
        if secrets["NORTH_OFFICER_USER"] == nil {
            let verification = try VerificationConfiguration(settings(.verification, plan.settings(of: .verification)))
            let existing = try await VerificationAdmin.authorities(["list"], configuration: verification, environment: environment)
            if !existing.split(separator: "\n").contains(where: { $0.hasPrefix("\(demoAuthority)\t") }) {
                _ = try await VerificationAdmin.authorities(
                    ["add", "--id", demoAuthority, "--name", "Gesundheitsamt Nord (demo)", "--families", "cwa", "--per-hour", "100"],
                    configuration: verification, environment: environment
                )
            }
            let password = Codes.uuidV4(using: environment.random)
            _ = try await PortalAdmin.users(
                ["add", "officer-north", "--roles", "c19hotline", "--authority", demoAuthority], configuration: portal, environment: environment, password: { password }
            )
            created += [("NORTH_OFFICER_USER", "officer-north"), ("NORTH_OFFICER_PASSWORD", password)]
        }
        // A health authority system's admin key and the device key ENX would carry, both of `default`: the demo's ENX
        // story issues, verifies and certifies with them.
        if secrets["ENX_DEVICE_KEY"] == nil {
            let verification = try VerificationConfiguration(settings(.verification, plan.settings(of: .verification)))
            func key(_ role: String, _ name: String) async throws -> String {
                let output = try await VerificationAdmin.enxKeys(["add", "--name", name, "--role", role], configuration: verification, environment: environment)
                return String(output.split(separator: "\n").last ?? "")
            }
            created += [("ENX_ADMIN_KEY", try await key("admin", "demo-lab-system")), ("ENX_DEVICE_KEY", try await key("device", "demo-enx"))]
        }
        guard !created.isEmpty else { return secrets }
        try credentials.add(created)
        secrets.merge(created) { $1 }
        print(firstRunNotice(created, file: credentials.file))
        return secrets
    }

    /// The second health authority of a suite's first start.
    static let demoAuthority = "north"

    static func exportPublicKeyPEM(plan: StackPlan, settings: InProcessRunner.SettingsReader) throws -> String {
        let submission = try SubmissionConfiguration(settings(.submission, plan.settings(of: .submission)), serveExportsByDefault: true)
        return try SubmissionService.exportPublicKeyPEM(submission)
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
        let serviceEnvironment = ServiceEnvironment(logger: logger)
        let settings = settingsReader(layout)
        let credentials = FirstRunCredentials(layout: layout)
        let plan = try plan(layout: layout, tokens: try credentials.serviceTokens(random: serviceEnvironment.random), random: serviceEnvironment.random)
        // One authority's audit log, as `portal-service audit --authority <id>` prints it from the suite's database.
        let portalConfiguration = try PortalConfiguration(settings(.portal, plan.settings(of: .portal)))
        let auditLog = { (authority: String) in
            try await PortalAdmin.audit(["--authority", authority, "--limit", "100000"], configuration: portalConfiguration, environment: serviceEnvironment)
        }
        // A suite already running answers at the ports it was configured with.
        let configured = try configuredEndpoints(settings: settings, plan: plan)
        if await DemoClient().isLive(configured.verification) {
            print("Using the suite already running (data in \(layout.dataDirectory.path)).\n")
            let story = DemoStory(
                endpoints: configured,
                credentials: try credentials.read(),
                credentialsSource: "\(layout.path("credentials.txt")); a suite already running keeps its own, so give the demo the DATA_DIR that suite was started with",
                exportPublicKey: try P256.Signing.PublicKey(pemRepresentation: exportPublicKeyPEM(plan: plan, settings: settings)),
                lemon: try lemonAccess(plan: plan, settings: settings, environment: serviceEnvironment)
            )
            try await story.runTestStory()
            try await story.runTeleTANStory()
            try await story.runFamilyStories()
            try await story.runENXStory()
            try await story.runAuthoritiesStory(auditLog: auditLog)
            print("\nEvery step held.")
            return
        }
        let services = try await startServices(layout: layout, environment: serviceEnvironment, logger: logger)
        print("Started the suite in this process (data in \(layout.dataDirectory.path)).\n")
        let story = DemoStory(
            endpoints: services.endpoints,
            credentials: services.credentials,
            credentialsSource: layout.path("credentials.txt"),
            exportPublicKey: try P256.Signing.PublicKey(pemRepresentation: services.exportPublicKeyPEM),
            lemon: try lemonAccess(plan: plan, settings: settings, environment: serviceEnvironment)
        )
        do {
            try await story.runTestStory()
            try await story.runTeleTANStory()
            try await story.runFamilyStories()
            try await story.runENXStory()
            try await story.runAuthoritiesStory(auditLog: auditLog)
            await services.stack.stop()
            print("\nEvery step held.")
        } catch {
            await services.stack.stop()
            throw error
        }
    }

    /// The LEMON story's access: the submission service's server keys as configured, and its aggregates call (what
    /// `submission-service lemon-aggregates` prints). Nil when the family is turned off (`SUBMISSION_LEMON_ENABLED=false`).
    static func lemonAccess(plan: StackPlan, settings: InProcessRunner.SettingsReader, environment: ServiceEnvironment) throws -> DemoLemonAccess? {
        let submission = try SubmissionConfiguration(settings(.submission, plan.settings(of: .submission)), serveExportsByDefault: true)
        guard submission.lemon.enabled, let keys = submission.lemon.serverKeys else { return nil }
        let k = submission.lemon.aggregateMinimumCount
        return DemoLemonAccess(serverKeys: keys, minimumCount: k) { day in
            try await SubmissionService.lemonAggregates(submission, from: day, to: day, minimumCount: k, environment: environment)
        }
    }

    /// Where a suite started with this layout answers, from each service's configured ports.
    static func configuredEndpoints(settings: InProcessRunner.SettingsReader, plan: StackPlan) throws -> DemoStory.Endpoints {
        DemoStory.Endpoints(
            verification: "http://127.0.0.1:\(try VerificationConfiguration(settings(.verification, plan.settings(of: .verification))).appListener.port)",
            verificationIssuer: "http://127.0.0.1:\(try VerificationConfiguration(settings(.verification, plan.settings(of: .verification))).issuerListener.port)",
            testResultLabs: "http://127.0.0.1:\(try TestResultConfiguration(settings(.testResult, plan.settings(of: .testResult))).labListener.port)",
            submission: "http://127.0.0.1:\(try SubmissionConfiguration(settings(.submission, plan.settings(of: .submission))).listener.port)",
            portal: "http://127.0.0.1:\(try PortalConfiguration(settings(.portal, plan.settings(of: .portal))).listener.port)"
        )
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

    /// What the first start says of the credentials it made: their names and where they are, never a value, so that
    /// no secret stays in a terminal's scroll-back or a container's log.
    static func firstRunNotice(_ created: [(String, String)], file: URL) -> String {
        """

            First start: created development credentials (\(created.map(\.0).joined(separator: ", "))).
            They are in \(file.path) (mode 0600): `cat` it to sign in to the portal or call the lab API.
            """
    }
}
