import ExposureCore
import Logging
import Submission

await CommandLineTool(
    tool: "submission-service",
    summary: "diagnosis keys in, with a TAN verified by the verification service; signed export files out",
    commands: [
        .serve(
            service: "submission",
            summary: "migrate the database and serve the app-facing listener (with the retention and distribution jobs)",
            configuration: { try SubmissionConfiguration($0) },
            bundle: SubmissionService.makeBundle
        ),
        .init("distribute", summary: "publish signed export files and indexes once, then exit") { _, settings in
            let configuration = try SubmissionConfiguration(settings)
            let logger = Logger(label: "exposure.submission")
            if let report = try await SubmissionService.distribute(configuration, environment: ServiceEnvironment(logger: logger)) {
                print("Published to \(configuration.distribution.exportDirectory.path): \(report.filesWritten) new file(s), "
                    + "\(report.keysPublished) key(s) in new hourly files, \(report.keysPending) key(s) held back for later hours.")
            } else {
                print("Another replica is running the distribution; nothing done.")
            }
        },
        .migrate(service: "submission", configuration: { try SubmissionConfiguration($0) }, migrate: SubmissionService.migrate),
    ]
).main()
