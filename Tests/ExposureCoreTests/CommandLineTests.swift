import ArgumentParser
import ExposureBuildInfo
import ExposureCore
import ExposureTestSupport
import Foundation
import Testing

/// The shared pieces of every executable's command line: how service settings pass from argument-parser to
/// `Settings`, and which error exits with which code.
@Suite struct CommandLineTests {
    /// A command shaped like the services' admin commands: an argument, an option of its own, and settings.
    struct Probe: ParsableCommand, SettingsCommand {
        static let configuration = CommandConfiguration(commandName: "probe")
        @Argument var name: String
        @Option var limit = 1
        @OptionGroup var settings: SettingsOptions
    }

    struct Port: Sendable {
        let port: Int
        init(_ settings: Settings) throws {
            port = try settings.port("PORT", default: 8000)
        }
    }

    @Test func settingFlagsAreLeftForSettingsAndNamedByTheirVariables() throws {
        let probe = try #require(try Probe.parseAsRoot(["anna", "--database-url", "sqlite::memory:", "--limit", "3", "--port=9"]) as? Probe)
        #expect(probe.name == "anna")
        #expect(probe.limit == 3)
        #expect(probe.settings.flags == ["--database-url", "sqlite::memory:", "--port=9"])
        #expect(try SettingsOptions.variables(in: probe.settings.flags) == ["DATABASE_URL", "PORT"])
    }

    /// A word that belongs to no setting is an argument the command does not take.
    @Test func aStrayWordOrShortOptionIsAUsageError() throws {
        #expect(throws: ValidationError.self) { try SettingsOptions.variables(in: ["extra", "--port", "1"]) }
        #expect(throws: ValidationError.self) { try SettingsOptions.variables(in: ["-x"]) }
        // One value per flag: more words are not a setting's, e.g. a command given after the settings.
        #expect(throws: ValidationError.self) { try SettingsOptions.variables(in: ["--database-url", "x", "users", "list"]) }
        #expect(throws: ValidationError.self) { try SettingsOptions.variables(in: ["--port=1", "2"]) }
        #expect(try SettingsOptions.variables(in: ["--trusted-proxy", "--port", "-1", "--tls-cert-file="]) == ["TRUSTED_PROXY", "PORT", "TLS_CERT_FILE"])
        #expect(throws: UsageError.self) { try Probe.parse(words: ["anna", "extra"], as: Probe.self) }
        #expect(throws: UsageError.self) { try Probe.parse(words: [], as: Probe.self) }
        #expect(throws: UsageError.self) { try Probe.parse(words: ["anna", "--limit", "many"], as: Probe.self) }
    }

    /// In the same process there is no `Settings` to give a setting flag to, so it is refused rather than ignored.
    @Test func settingFlagsAreRefusedWhenParsedInProcess() {
        #expect(throws: UsageError.self) { try Probe.parse(words: ["anna", "--port", "1"], as: (any SettingsCommand).self) }
    }

    @Test func aFlagWinsOverItsEnvironmentVariable() throws {
        #expect(try SettingsOptions.read(flags: ["--port", "9001"], environment: ["PORT": "9000"], setUpLogging: false, Port.init).port == 9001)
        #expect(try SettingsOptions.read(flags: [], environment: ["PORT": "9000"], setUpLogging: false, Port.init).port == 9000)
    }

    /// A flag that the configuration never read is a typo or another service's setting: a usage error, not ignored.
    @Test func aFlagNothingReadIsAUsageError() throws {
        let error = try #require(throws: ValidationError.self) {
            try SettingsOptions.read(flags: ["--prot", "9001"], environment: [:], setUpLogging: false, Port.init)
        }
        #expect(error.message.contains("'--prot'"))
        // Settings every service reads (CommonSettings) count as read.
        #expect(try SettingsOptions.read(flags: ["--log-level", "debug"], environment: [:], setUpLogging: false, Port.init).port == 8000)
    }

    /// A setting may come from a file, `--port-file <path>` for `PORT_FILE`: the flag is one the configuration reads.
    @Test func aSettingsFileFlagIsASettingToo() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("port-\(UUID().uuidString)")
        try SecretFile.write("9002\n", to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try SettingsOptions.read(flags: ["--port-file", file.path], environment: [:], setUpLogging: false, Port.init).port == 9002)
    }

    @Test func anInvalidValueIsTheConfigurationErrorNamingTheVariable() throws {
        let error = try #require(throws: ConfigurationError.self) {
            try SettingsOptions.read(flags: ["--port", "http"], environment: [:], setUpLogging: false, Port.init)
        }
        #expect(error.description == "invalid configuration: PORT must be a whole number, got 'http'")
    }

    @Test func errorsMapToTheExitCodesOperatorsRelyOn() {
        struct Other: Error {}
        #expect(CommandLineMain.exitCode(for: ConfigurationError(variable: "PORT", reason: "is bad")) == 2)
        #expect(CommandLineMain.exitCode(for: UsageError("no")) == 64)
        #expect(CommandLineMain.exitCode(for: ValidationError("no")) == 64)
        #expect(CommandLineMain.exitCode(for: ExitCode.failure) == 1)
        #expect(CommandLineMain.exitCode(for: Other()) == 1)
    }

    @Test func theListCommandsJSONHasSortedKeysAndNulls() throws {
        struct Row: Encodable {
            let zeta = "z", alpha: String? = nil
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(zeta, forKey: .zeta)
                try container.encode(alpha, forKey: .alpha)
            }
            enum CodingKeys: String, CodingKey { case zeta, alpha }
        }
        #expect(try ListOutputOptions.render(json: true, ["rows": [Row()]]) { "table" } == #"{"rows":[{"alpha":null,"zeta":"z"}]}"#)
        #expect(try ListOutputOptions.render(json: false, ["rows": [Row()]]) { "table" } == "table")
    }

    /// `--version`: the release, a semantic version, then the commit and when it was built.
    @Test func theVersionNamesTheReleaseTheCommitAndTheBuildDate() throws {
        #expect(BuildInfo.version.split(separator: ".").count == 3)
        #expect(BuildInfo.version.split(separator: ".").allSatisfy { Int($0) != nil })
        #expect(ExposureSuite.version == "\(BuildInfo.version) (commit \(BuildInfo.commit), built \(BuildInfo.buildDate))")
        #expect(ISO8601DateFormatter().date(from: BuildInfo.buildDate) != nil)
        // Built from this checkout: the commit is git's HEAD (with "-dirty" when tracked files were changed).
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        git.arguments = ["rev-parse", "--short=12", "HEAD"]
        let output = Pipe()
        git.standardOutput = output
        git.standardError = FileHandle.nullDevice
        try git.run()
        git.waitUntilExit()
        let head = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(git.terminationStatus == 0 && head.count == 12)
        #expect(BuildInfo.commit == head || BuildInfo.commit == head + "-dirty", "built from \(BuildInfo.commit), HEAD is \(head)")
    }
}
