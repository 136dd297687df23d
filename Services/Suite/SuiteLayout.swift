import ExposureCore
import Foundation

/// How the all-in-one launcher lays the four services out on one host: SQLite files under `DATA_DIR`, the default
/// ports, and the wiring between them. Each service reads its usual variables; the launcher builds them from
/// these defaults plus any `VERIFICATION_*`, `TESTRESULT_*`, `SUBMISSION_*` or `PORTAL_*` variable of the
/// process (e.g. `VERIFICATION_PORT=9010` moves the verification app listener).
struct SuiteLayout {
    let dataDirectory: URL
    let bindHost: String
    let processEnvironment: [String: String]

    /// - Parameter createDataDirectory: whether to create `DATA_DIR` (a command that only reads the layout,
    ///   `healthcheck`, writes nothing).
    init(environment: [String: String], createDataDirectory: Bool = true) throws {
        let data = environment["DATA_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "data"
        dataDirectory = URL(fileURLWithPath: data, isDirectory: true).standardizedFileURL
        bindHost = environment["BIND_HOST"].flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        processEnvironment = environment
        if createDataDirectory {
            // Its keys, credentials and databases are the suite's alone: the folder is private (0700), also when an
            // older version made it readable.
            try PrivateFiles.createFolder(dataDirectory.path, tighten: true)
        }
    }

    /// The environment one service sees: shared settings, the suite's defaults, then the operator's overrides.
    func environment(for prefix: String, defaults: [String: String]) -> [String: String] {
        var result: [String: String] = ["BIND_HOST": bindHost]
        for key in ["LOG_LEVEL", "LOG_FORMAT"] { result[key] = processEnvironment[key] }
        result.merge(defaults) { $1 }
        for (key, value) in processEnvironment where key.hasPrefix(prefix + "_") {
            result[String(key.dropFirst(prefix.count + 1))] = value
        }
        return result
    }

    func database(_ name: String) -> String {
        "sqlite://" + dataDirectory.appendingPathComponent("\(name).db").path
    }

    func path(_ name: String) -> String {
        dataDirectory.appendingPathComponent(name).path
    }

    func settings(for prefix: String, defaults: [String: String]) -> Settings {
        Settings(arguments: ["exposure-suite"], environment: environment(for: prefix, defaults: defaults))
    }
}
