import ExposureCore
import Logging
import TestResult

await CommandLineTool(
    tool: "testresult-service",
    summary: "lab results in, test status out",
    commands: [
        .serve(service: "testresult", summary: "migrate the database and serve the lab and internal listeners", configuration: { try TestResultConfiguration($0) }, bundle: TestResultService.makeBundle),
        .migrate(service: "testresult", configuration: { try TestResultConfiguration($0) }, migrate: TestResultService.migrate),
        .init("labs", summary: "manage lab credentials: labs add <labId> | labs add-cert <labId> <cert.pem|sha256> | labs list | labs revoke <labId>") { words, settings in
            let configuration = try TestResultConfiguration(settings)
            print(try await TestResultAdmin.labs(words.positional, configuration: configuration, environment: ServiceEnvironment(logger: Logger(label: "exposure.testresult"))))
        },
    ]
).main()
