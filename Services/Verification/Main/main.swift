import ExposureCore
import Logging
import Verification

await CommandLineTool(
    tool: "verification-service",
    summary: "registration tokens, test results, TANs and teleTANs",
    commands: [
        .init("serve", summary: "migrate the database and serve the app-facing and internal listeners") { _, settings in
            let configuration = try VerificationConfiguration(settings)
            let logger = Logger(label: "exposure.verification")
            let bundle = try await VerificationService.makeBundle(configuration, environment: ServiceEnvironment(logger: logger))
            try await ServiceRunner.run([bundle], logger: logger)
        },
        .init("migrate", summary: "apply database migrations and exit") { _, settings in
            let configuration = try VerificationConfiguration(settings)
            try await VerificationService.migrate(configuration, environment: ServiceEnvironment(logger: Logger(label: "exposure.verification")))
        },
    ]
).main()
