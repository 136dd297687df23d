import ExposureTestSupport
import Foundation

/// The export tree checked by tools that share nothing with this code base (`check_tree.py`: Python's json and
/// zipfile, protobuf classes from a `.proto` written from the contract, OpenSSL for the signatures), beside
/// `ExportTreeCheck`, which reads it with the project's own types and crypto.
struct IndependentTreeCheck {
    /// What the script found: its complaints, the dates listed, each reachable key file's export.bin by SHA-256, and
    /// the key files on disk that no index names.
    struct Report: Equatable {
        var problems: [String]
        var dates: [String]
        var files: [String: String]
        var unlisted: [String]
    }

    let root: URL
    /// The PEM public keys, in the order of the signatures in each `export.sig` (`SIGNING_KEY_FILE`'s, then
    /// `SIGNING_ADDITIONAL_KEY_FILES`'s): every signature is verified against its own.
    let publicKeyFiles: [URL]

    func run() async throws -> Report {
        let classes = try ExternalTool.pythonClasses(for: "export_contract.proto")
        defer { try? FileManager.default.removeItem(at: classes) }
        let output = try await ExternalTool.run([
            ExternalTool.python, ExternalTool.fixtures.appendingPathComponent("check_tree.py").path,
            classes.path, root.path,
        ] + publicKeyFiles.map(\.path))
        guard let json = try JSONSerialization.jsonObject(with: output) as? [String: Any],
              let problems = json["problems"] as? [String], let dates = json["dates"] as? [String],
              let files = json["files"] as? [String: Any], let unlisted = json["unlisted"] as? [String]
        else { throw ExternalTool.Failed(description: "check_tree.py printed \(String(decoding: output, as: UTF8.self))") }
        // A reachable file that failed its check is listed with null and named among the problems.
        return Report(problems: problems, dates: dates, files: files.compactMapValues { $0 as? String }, unlisted: unlisted)
    }
}
