import ExposureCore
import ExposureTestSupport
import Foundation
import Portal
import Submission
import Testing
import TestResult
import Verification

/// Every setting that names a file fails closed, in every service: a file that is missing, not a regular file, empty
/// or, holding a secret, open to other users stops the configuration with an error naming the setting. Before,
/// `Settings` took an unreadable `NAME_FILE` for an unset `NAME`, so `DATABASE_URL_FILE=/nonexistent` migrated a fresh
/// SQLite file and an unreadable `TOTP_ENCRYPTION_KEY_FILE` gave a generated per-replica key.
///
/// The settings are not listed here by hand: each service's configuration is read once and its read log says which
/// `*_FILE` settings it asks for (every `NAME` read also reads `NAME_FILE`), so a setting added later is covered too.
@Suite struct FileSettingsTests {
    typealias Reader = @Sendable (Settings) throws -> Void

    static let services: [(String, Reader)] = [
        ("verification", { _ = try VerificationConfiguration($0) }),
        ("test-result", { _ = try TestResultConfiguration($0) }),
        ("submission", { _ = try SubmissionConfiguration($0) }),
        ("portal", { _ = try PortalConfiguration($0) }),
    ]

    /// Settings that start every service.
    static let environment = TestServiceTokens.serviceDefaults.merging([
        "TELETAN_HASH_KEYS": TestServices.teleTANHashKeys, "DATABASE_URL": "sqlite::memory:",
    ]) { $1 }

    /// Settings that name a file another program writes while the service runs, which may not be there yet at
    /// start (the LEMON statistics report a fetcher drops); their `_FILE` forms are checked as any other.
    static let filesWrittenLater: Set<String> = ["LEMON_STATISTICS_FILE"]

    /// Settings whose names end in `_FILE` but that hold no path (their `_FILE` forms are checked as any other).
    static let notPaths: Set<String> = ["MAX_KEYS_PER_FILE"]

    /// Settings that name a file anyone may read (a certificate, a configuration document); every other file is
    /// taken to hold a secret.
    static let publicFiles: Set<String> = ["APP_CONFIG_FILE", "COVIDSHIELD_EXPOSURE_CONFIGURATION_FILE", "TLS_CERT_FILE"]

    static func fileSettings(_ read: Reader) throws -> [String] {
        let log = SettingsReadLog()
        try read(Settings(arguments: ["test"], environment: environment, readLog: log))
        return log.read.filter { $0.hasSuffix("_FILE") }.sorted()
    }

    /// The error reading `variable = path` gives, or nil when the configuration was read.
    static func error(_ read: Reader, _ variable: String, _ path: String) -> ConfigurationError? {
        var settings = environment
        settings[variable] = path
        // The variable a `NAME_FILE` stands for would win over it.
        settings[String(variable.dropLast("_FILE".count))] = nil
        do {
            try read(Settings(arguments: ["test"], environment: settings))
            return nil
        } catch {
            return error as? ConfigurationError
        }
    }

    @Test(arguments: 0..<4)
    func aFileThatCannotBeUsedStopsTheConfiguration(service: Int) throws {
        let (name, read) = Self.services[service]
        let variables = try Self.fileSettings(read)
        // Every service reads its database, logging and listener settings at least, each with its `_FILE` form.
        #expect(variables.count >= 10, "\(name) read only \(variables)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("file-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let empty = folder.appendingPathComponent("empty")
        try SecretFile.write("", to: empty)
        let blank = folder.appendingPathComponent("blank")
        try SecretFile.write(" \n", to: blank)
        let open = folder.appendingPathComponent("open")
        try Data("value\n".utf8).write(to: open)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: open.path)
        for variable in variables where !Self.filesWrittenLater.contains(variable) && !Self.notPaths.contains(variable) {
            let cases: [(String, String)] = [
                (folder.appendingPathComponent("missing").path, "does not exist"),
                (folder.path, "is not a regular file"),
                (empty.path, "is empty"),
            ]
            for (path, reason) in cases {
                let error = Self.error(read, variable, path)
                #expect(error?.variable == variable && error?.reason.contains(reason) == true, "\(name) \(variable)=\(path): \(String(describing: error))")
            }
            if variable.hasSuffix("_FILE_FILE") || !Self.publicFiles.contains(variable) {
                let error = Self.error(read, variable, open.path)
                #expect(
                    error?.variable == variable && error?.reason.contains("other users can access (mode 644)") == true,
                    "\(name) \(variable) took a secret others can read: \(String(describing: error))"
                )
            }
            // A `NAME_FILE` (not a file setting of its own, such as SIGNING_KEY_FILE) holding only white space is no
            // value either: it used to stand for an unset NAME.
            if Self.isValueFile(variable, of: variables) {
                let error = Self.error(read, variable, blank.path)
                #expect(error?.variable == variable && error?.reason.contains("only white space") == true, "\(name) \(variable): \(String(describing: error))")
            }
        }
    }

    /// Whether `variable` is the `_FILE` form of a setting whose value is text (`DATABASE_URL_FILE`), rather than a
    /// setting that is itself a path (`SIGNING_KEY_FILE`, whose value form is `SIGNING_KEY_FILE_FILE`).
    static func isValueFile(_ variable: String, of variables: [String]) -> Bool {
        !variables.contains(variable + "_FILE")
    }

    /// A private file passes: a secret from a file with mode 0600 (or 0640 for a group) is read as before.
    @Test func aPrivateFileIsRead() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("file-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("database-url")
        try SecretFile.write("sqlite::memory:\n", to: file)
        for mode in [0o600, 0o640, 0o440] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file.path)
            var settings = Self.environment
            settings["DATABASE_URL"] = nil
            settings["DATABASE_URL_FILE"] = file.path
            let configuration = try TestResultConfiguration(Settings(arguments: ["test"], environment: settings))
            #expect(configuration.common.databaseURL.connectionString == "sqlite::memory:")
        }
    }
}
