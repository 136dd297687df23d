import ExposureCore
import Logging
import Submission

await CommandLineTool(
    tool: "submission-service",
    summary: "diagnosis keys in, with a TAN verified by the verification service",
    commands: [
        .init("serve", summary: "migrate the database and serve the app-facing listener (and the retention job)") { _, settings in
            let configuration = try SubmissionConfiguration(settings)
            let logger = Logger(label: "exposure.submission")
            let bundle = try await SubmissionService.makeBundle(configuration, environment: ServiceEnvironment(logger: logger))
            try await ServiceRunner.run([bundle], logger: logger)
        },
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
        .init("migrate", summary: "apply database migrations and exit") { _, settings in
            let configuration = try SubmissionConfiguration(settings)
            try await SubmissionService.migrate(configuration, environment: ServiceEnvironment(logger: Logger(label: "exposure.submission")))
        },
    ]
).main()
