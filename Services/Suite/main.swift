import ExposureCore
import Foundation

await CommandLineTool(
    tool: "exposure-suite",
    summary: "all four ExposureSuite services in one process, on SQLite files in ./data",
    commands: [
        .init("serve", summary: "start every service with the default ports (Ctrl-C stops)") { _, _ in
            try await SuiteLauncher.serve(environment: ProcessInfo.processInfo.environment)
        },
        .init("demo", summary: "run the whole story over HTTP (against the running suite, or one started for the demo)") { _, _ in
            do {
                try await SuiteLauncher.demo(environment: ProcessInfo.processInfo.environment)
            } catch let failure as DemoFailure {
                print("\nThe demo stopped: \(failure.description)")
                fflush(nil)
                exit(1)
            }
        },
    ]
).main()
