import ExposureTestSupport
import Foundation
import Testing

/// `exposure-suite demo` with no suite running: it starts one in its process, on the ports it is given, and tells
/// every story against it, the other app families' included (their code kinds are on in the suite, and LEMON with
/// development keys it makes on first start).
@Suite struct SuiteDemoTests {
    static let portVariables = [
        "VERIFICATION_PORT", "VERIFICATION_INTERNAL_PORT", "VERIFICATION_ISSUER_PORT", "VERIFICATION_MANAGEMENT_PORT",
        "TESTRESULT_PORT", "TESTRESULT_INTERNAL_PORT", "TESTRESULT_MANAGEMENT_PORT", "SUBMISSION_PORT", "SUBMISSION_MANAGEMENT_PORT",
        "PORTAL_PORT", "PORTAL_MANAGEMENT_PORT",
    ]

    @Test func theSuitesDemoTellsEveryFamilysStory() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("suite-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var environment = ["DATA_DIR": directory.path, "LOG_LEVEL": "error"]
        for variable in Self.portVariables { environment[variable] = "\(ServiceProcess.freePort())" }
        // The portal gives an officer one code per 30 s: the family stories wait for it, so this takes a minute or two.
        let run = try await ServiceProcess.capture("exposure-suite", ["demo"], environment: environment, timeout: .seconds(300))
        let output = run.standardOutput + run.standardError
        #expect(!run.timedOut)
        #expect(run.status == 0, "\(output)")
        for story in [
            "== A positive PCR test", "== An officer gives a teleTAN", "== A CovidShield app", "== A ProteGO Safe app", "== A LEMON tracing app",
        ] {
            #expect(output.contains(story), "\(story) missing from \(output)")
        }
        #expect(output.contains("error NONE"))
        #expect(output.contains("in index.txt: a signed GAEN zip of region PL"))
        // LEMON, with keys the suite made on its first start: a signed registration, a JWT, German symptoms, a survey,
        // and the day's counts with the one answer suppressed.
        for line in [
            "1. The app registers its AppId with a fresh RSA-2048 key pair, signing its seed and the time: 201;",
            "(the same AppId signed with another key is refused: 401;",
            "2. It authenticates with a new seed, signed with its key: 201, a JWT (ES256) valid until ",
            "3. It reads the symptoms in German with the JWT: 200, ", "Halsschmerzen",
            "4. It donates a survey (Positive, ", "5. The health authority's aggregates (submission-service lemon-aggregates)",
            ",answers,,<10", ",status,Positive,<10", "(small counts suppressed: a count below k=10 is printed as <10",
        ] {
            #expect(output.contains(line), "\(line) missing from \(output)")
        }
        for key in ["lemon-encryption-key.pem", "lemon-signing-key.pem", "lemon-jwt-key.pem", "lemon-appid-hash-keys"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(key).path)
            #expect(attributes[.posixPermissions] as? Int == 0o600, "\(key)")
        }
        #expect(output.contains("Every step held."))
        try Self.expectPrivateDataDirectory(directory, output: output)
    }

    /// What the suite keeps in its data directory is its user's alone, and its output names no secret: the folder is
    /// 0700 and every file in it (databases with their -wal and -shm, keys, credentials) 0600, except the export
    /// tree, which is public data; no value of `credentials.txt` that is a secret was printed.
    static func expectPrivateDataDirectory(_ directory: URL, output: String) throws {
        let manager = FileManager.default
        #expect(try manager.attributesOfItem(atPath: directory.path)[.posixPermissions] as? Int == 0o700)
        let files = (manager.enumerator(atPath: directory.path)?.allObjects as? [String] ?? []).filter { !$0.hasPrefix("exports") }
        #expect(files.contains("verification.db") && files.contains("credentials.txt"), "\(files)")
        for file in files {
            let attributes = try manager.attributesOfItem(atPath: directory.appendingPathComponent(file).path)
            let expected = attributes[.type] as? FileAttributeType == .typeDirectory ? 0o700 : 0o600
            #expect(attributes[.posixPermissions] as? Int == expected, "\(file) has mode \(String(attributes[.posixPermissions] as? Int ?? 0, radix: 8))")
        }
        let credentials = try String(contentsOf: directory.appendingPathComponent("credentials.txt"), encoding: .utf8)
        // A supervisor beside the officer, for the pages officers do not see.
        #expect(credentials.contains("\nSUPERVISOR_USER=supervisor\n") && credentials.contains("\nSUPERVISOR_PASSWORD="))
        for line in credentials.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, ["KEY", "PASSWORD", "TOKEN"].contains(where: parts[0].contains) else { continue }
            #expect(!output.contains(parts[1]), "the suite printed \(parts[0])")
        }
    }
}
