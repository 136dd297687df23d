import ExposureCore
import Foundation

/// Secrets the launcher creates on first start (a development lab key, an officer account), shown once and kept
/// in `DATA_DIR/credentials.txt` with mode 0600 so that the demo and a newcomer can find them again.
struct FirstRunCredentials {
    let file: URL

    init(layout: SuiteLayout) {
        file = URL(fileURLWithPath: layout.path("credentials.txt"))
    }

    var exists: Bool { FileManager.default.fileExists(atPath: file.path) }

    /// Reads `KEY=value` lines.
    func read() throws -> [String: String] {
        let text = try String(contentsOf: file, encoding: .utf8)
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        return values
    }

    func write(_ values: [(String, String)]) throws {
        let body = ["# ExposureSuite development credentials, created on first start. Keep this file private."]
            + values.map { "\($0.0)=\($0.1)" }
        let created = FileManager.default.createFile(
            atPath: file.path, contents: Data((body.joined(separator: "\n") + "\n").utf8), attributes: [.posixPermissions: 0o600]
        )
        if !created { throw CocoaError(.fileWriteUnknown) }
    }
}
