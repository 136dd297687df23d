import ExposureCore
import Logging
import Verification

await CommandLineTool(
    tool: "verification-service",
    summary: "registration tokens, test results, TANs and teleTANs",
    commands: [
        .serve(service: "verification", summary: "migrate the database and serve the app-facing and internal listeners", configuration: { try VerificationConfiguration($0) }, bundle: VerificationService.makeBundle),
        .migrate(service: "verification", configuration: { try VerificationConfiguration($0) }, migrate: VerificationService.migrate),
    ]
).main()
