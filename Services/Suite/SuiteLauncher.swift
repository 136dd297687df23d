import ExposureCore
import Foundation
import Logging
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
        // test-result
        let testResult = try TestResultConfiguration(layout.settings(for: "TESTRESULT", defaults: [
            "DATABASE_URL": layout.database("testresult"),
        ]))
        // verification, asking test-result on localhost
        let verification = try VerificationConfiguration(layout.settings(for: "VERIFICATION", defaults: [
            "DATABASE_URL": layout.database("verification"),
            "TESTRESULT_URL": "http://127.0.0.1:\(testResult.internalListener.port)",
        ]))

        let credentials = FirstRunCredentials(layout: layout)
        var secrets: [String: String] = [:]
        if credentials.exists {
            secrets = try credentials.read()
        } else {
            let labKey = try await TestResultAdmin.addLab("dev-lab", configuration: testResult, environment: environment)
            let created = [("LAB_ID", "dev-lab"), ("LAB_API_KEY", labKey)]
            try credentials.write(created)
            secrets = Dictionary(uniqueKeysWithValues: created)
            print(firstRunNotice(created, file: credentials.file))
        }

        var bundles: [ServiceBundle] = []
        do {
            bundles.append(try await TestResultService.makeBundle(testResult, environment: environment))
            bundles.append(try await VerificationService.makeBundle(verification, environment: environment))
        } catch {
            for bundle in bundles { await bundle.close() }
            throw error
        }
        let host = layout.bindHost == "0.0.0.0" ? "localhost" : layout.bindHost
        let rows: [(String, String, String)] = [
            ("verification", "apps", "http://\(host):\(verification.appListener.port)"),
            ("verification", "internal", "http://\(host):\(verification.internalListener.port)"),
            ("test-result", "labs", "http://\(host):\(testResult.labListener.port)"),
            ("test-result", "internal", "http://\(host):\(testResult.internalListener.port)"),
        ]
        return Services(bundles: bundles, rows: rows, credentials: secrets)
    }

    static func banner(_ services: Services, layout: SuiteLayout) -> String {
        let width = services.rows.map { $0.service.count + $0.listener.count + 3 }.max() ?? 0
        let lines = services.rows.map { row in
            "  " + "\(row.service) (\(row.listener))".padding(toLength: width, withPad: " ", startingAt: 0) + "  " + row.url
        }
        return """

            ExposureSuite is running (data in \(layout.dataDirectory.path)):
            \(lines.joined(separator: "\n"))
              every listener also answers /health/live, /health/ready and /metrics

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
