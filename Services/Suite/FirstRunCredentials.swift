import ExposureCore
import Foundation

/// Secrets the launcher creates on first start (a development lab key, an officer account), never printed, kept
/// in `DATA_DIR/credentials.txt` with mode 0600 so that the demo and a newcomer can find them again.
struct FirstRunCredentials {
    let file: URL

    init(layout: SuiteLayout) {
        file = URL(fileURLWithPath: layout.path("credentials.txt"))
    }

    var exists: Bool { FileManager.default.fileExists(atPath: file.path) }

    /// Reads `KEY=value` lines; none when the file does not exist yet.
    func read() throws -> [String: String] {
        guard exists else { return [:] }
        let text = try String(contentsOf: file, encoding: .utf8)
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        return values
    }

    /// Adds `values` to the file (created, mode 0600, when missing), keeping the lines it holds.
    func add(_ values: [(String, String)]) throws {
        let kept = exists ? try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init) : [
            "# ExposureSuite development credentials, created on first start. Keep this file private.",
        ]
        let body = kept + values.map { "\($0.0)=\($0.1)" }
        let created = FileManager.default.createFile(
            atPath: file.path, contents: Data((body.joined(separator: "\n") + "\n").utf8), attributes: [.posixPermissions: 0o600]
        )
        if !created { throw CocoaError(.fileWriteUnknown) }
    }

    /// The tokens the suite's services present to each other's internal listeners (`ServiceTokens`): read from the
    /// file, or made (32 random bytes each) and added to it on the first start that lacks them. Kept there so that a
    /// developer can call an internal API by hand: `curl -H "X-Service-Token: $SUBMISSION_TO_VERIFICATION_TOKEN" …`.
    func serviceTokens(random: any RandomSource) throws -> SuiteServiceTokens {
        var values = try read()
        var created: [(String, String)] = []
        for name in SuiteServiceTokens.names where values[name] == nil {
            let token = random.bytes(count: 32).hexString
            values[name] = token
            created.append((name, token))
        }
        if !created.isEmpty { try add(created) }
        return SuiteServiceTokens(values)
    }
}
