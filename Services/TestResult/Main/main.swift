import ExposureCore
import Logging
import TestResult

await CommandLineTool(
    tool: "testresult-service",
    summary: "lab results in, test status out",
    commands: [
        .init("serve", summary: "migrate the database and serve the lab and internal listeners") { _, settings in
            let configuration = try TestResultConfiguration(settings)
            let logger = Logger(label: "exposure.testresult")
            let bundle = try await TestResultService.makeBundle(configuration, environment: ServiceEnvironment(logger: logger))
            try await ServiceRunner.run([bundle], logger: logger)
        },
        .init("migrate", summary: "apply database migrations and exit") { _, settings in
            let configuration = try TestResultConfiguration(settings)
            try await TestResultService.migrate(configuration, environment: ServiceEnvironment(logger: Logger(label: "exposure.testresult")))
        },
        .init("labs", summary: "manage lab credentials: labs add <labId> | labs add-cert <labId> <cert.pem|sha256> | labs list | labs revoke <labId>") { words, settings in
            let configuration = try TestResultConfiguration(settings)
            print(try await TestResultAdmin.labs(words.positional, configuration: configuration, environment: ServiceEnvironment(logger: Logger(label: "exposure.testresult"))))
        },
    ]
).main()
