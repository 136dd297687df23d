import ExposureCore
import Foundation

await CommandLineTool(
    tool: "exposure-suite",
    summary: "all four ExposureSuite services in one process, on SQLite files in ./data",
    commands: [
        .init("serve", summary: "start every service with the default ports (Ctrl-C stops)") { _, _ in
            try await SuiteLauncher.serve(environment: ProcessInfo.processInfo.environment)
        },
    ]
).main()
