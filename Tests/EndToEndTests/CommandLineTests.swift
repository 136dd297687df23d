import ExposureCore
import ExposureTestSupport
import Foundation
import Testing

/// The executables' command lines, run as processes: help and version do nothing else, wrong words exit 64, a bad
/// setting exits 2 with one line, and `--json` prints the rows of the table.
@Suite struct CommandLineTests {
    /// Every command of every executable, as its words.
    static let commands: [(String, [String])] = [
        ("verification-service", []), ("verification-service", ["serve"]), ("verification-service", ["migrate"]),
        ("verification-service", ["healthcheck"]), ("testresult-service", ["healthcheck"]), ("submission-service", ["healthcheck"]),
        ("verification-service", ["issuers"]), ("verification-service", ["issuers", "add"]), ("verification-service", ["issuers", "list"]),
        ("verification-service", ["issuers", "remove"]),
        ("portal-service", ["healthcheck"]),
        ("testresult-service", []), ("testresult-service", ["serve"]), ("testresult-service", ["migrate"]),
        ("testresult-service", ["labs"]), ("testresult-service", ["labs", "add"]), ("testresult-service", ["labs", "add-cert"]),
        ("testresult-service", ["labs", "list"]), ("testresult-service", ["labs", "revoke"]),
        ("submission-service", []), ("submission-service", ["serve"]), ("submission-service", ["distribute"]),
        ("submission-service", ["migrate"]),
        ("portal-service", []), ("portal-service", ["serve"]), ("portal-service", ["migrate"]), ("portal-service", ["users"]),
        ("portal-service", ["users", "add"]), ("portal-service", ["users", "list"]), ("portal-service", ["users", "disable"]),
        ("portal-service", ["users", "enable"]), ("portal-service", ["users", "set-password"]), ("portal-service", ["users", "reset-2fa"]),
        ("portal-service", ["audit"]),
        ("portal-service", ["signing-key"]),
        ("exposure-suite", []), ("exposure-suite", ["serve"]), ("exposure-suite", ["demo"]), ("exposure-suite", ["healthcheck"]),
        ("exposure-suite", ["development-keys"]),
    ]

    static let executables = ["verification-service", "testresult-service", "submission-service", "portal-service", "exposure-suite"]

    /// A scratch folder every setting that writes points into, so that a test can tell that nothing was written,
    /// and free ports, so that a command that wrongly starts a server does not collide with anything.
    struct Scratch {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")

        var environment: [String: String] {
            TestServiceTokens.serviceDefaults.merging([
                "DATABASE_URL": "sqlite://\(directory.path)/service.db", "DATA_DIR": directory.appendingPathComponent("data").path,
                "EXPORT_DIR": directory.appendingPathComponent("exports").path, "BIND_HOST": "127.0.0.1",
                "PORT": "\(ServiceProcess.freePort())", "INTERNAL_PORT": "\(ServiceProcess.freePort())",
                "MANAGEMENT_PORT": "\(ServiceProcess.freePort())", "BCRYPT_COST": "4",
            ]) { $1 }
        }

        /// What the commands left in the folder (which they may create, empty, and nothing more).
        var contents: [String] {
            (FileManager.default.enumerator(atPath: directory.path)?.allObjects as? [String] ?? []).sorted()
        }

        func make() throws -> Self {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            return self
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    /// `--help` on any command prints that command's usage and options and exits 0, without opening a database,
    /// creating a key, writing an export file or binding a port: `submission-service distribute --help` used to
    /// publish files and `serve --help` to start a server.
    @Test(arguments: commands)
    func helpOfEveryCommandDoesNothingElse(executable: String, words: [String]) async throws {
        let scratch = try Scratch().make()
        defer { scratch.remove() }
        let run = try await ServiceProcess.capture(executable, words + ["--help"], environment: scratch.environment, timeout: .seconds(20))
        #expect(!run.timedOut, "\(executable) \(words) --help kept running")
        #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)")
        #expect(run.standardOutput.contains("USAGE: \(([executable] + words).joined(separator: " "))"), "\(run.standardOutput)")
        #expect(scratch.contents.isEmpty, "\(executable) \(words) --help wrote \(scratch.contents)")
    }

    /// Each command's help lists its own options, not another command's.
    @Test func aCommandsHelpListsItsOwnOptions() async throws {
        let scratch = try Scratch().make()
        defer { scratch.remove() }
        let add = try await ServiceProcess.capture("portal-service", ["users", "add", "--help"], environment: scratch.environment)
        #expect(add.standardOutput.contains("--roles <roles>"))
        #expect(!add.standardOutput.contains("--json"))
        let audit = try await ServiceProcess.capture("portal-service", ["audit", "--help"], environment: scratch.environment)
        #expect(audit.standardOutput.contains("--limit <limit>"))
        #expect(audit.standardOutput.contains("--json"))
        #expect(!audit.standardOutput.contains("--roles"))
        let root = try await ServiceProcess.capture("testresult-service", ["--help"], environment: scratch.environment)
        for command in ["serve", "migrate", "labs"] { #expect(root.standardOutput.contains("  \(command)"), "\(root.standardOutput)") }
        #expect(root.standardOutput.contains("--version"))
    }

    @Test(arguments: executables)
    func versionPrintsTheProjectsVersion(executable: String) async throws {
        let scratch = try Scratch().make()
        defer { scratch.remove() }
        let run = try await ServiceProcess.capture(executable, ["--version"], environment: scratch.environment, timeout: .seconds(20))
        #expect(run.status == 0)
        #expect(run.standardOutput == ExposureSuite.version + "\n")
        #expect(scratch.contents.isEmpty)
    }

    /// Wrong words exit 64 before anything is opened: an unknown command (which would otherwise reach the default
    /// `serve`), an unknown option of a command, a flag that is no setting of the service, a missing argument.
    @Test(arguments: [
        ("testresult-service", ["frobnicate"]),
        ("testresult-service", ["labs", "frobnicate"]),
        ("testresult-service", ["labs"]),
        ("testresult-service", ["labs", "add"]),
        ("testresult-service", ["labs", "list", "--databse-url", "sqlite::memory:"]),
        ("submission-service", ["distribute", "--no-such-setting", "1"]),
        ("submission-service", ["--no-such-setting"]),
        ("portal-service", ["audit", "--limit", "ten"]),
        ("portal-service", ["users", "add", "anna"]),
        ("portal-service", ["signing-key", "extra"]),
        ("portal-service", ["--database-url", "sqlite::memory:", "users", "list"]),
        ("verification-service", ["serve", "-x"]),
        ("verification-service", ["issuers"]),
        ("verification-service", ["issuers", "add", "--name", "ha"]),
        ("verification-service", ["issuers", "remove"]),
        ("verification-service", ["issuers", "add", "--name", "ha", "--kind", "lemon"]),
        ("exposure-suite", ["--database-url", "sqlite::memory:"]),
        ("exposure-suite", ["demo", "--frobnicate"]),
    ])
    func wrongWordsExit64AndTouchNothing(executable: String, words: [String]) async throws {
        let scratch = try Scratch().make()
        defer { scratch.remove() }
        let run = try await ServiceProcess.capture(executable, words, environment: scratch.environment, timeout: .seconds(20))
        #expect(!run.timedOut)
        #expect(run.status == 64, "\(run.standardOutput)\(run.standardError)")
        #expect(!run.standardError.isEmpty)
        #expect(scratch.contents.isEmpty, "\(executable) \(words) wrote \(scratch.contents)")
    }

    /// A bad setting, from the environment or from its flag, stops the command with exit code 2 and one line that
    /// names the variable; a flag wins over the environment variable.
    @Test func aBadSettingExits2WithOneLine() async throws {
        let scratch = try Scratch().make()
        defer { scratch.remove() }
        var environment = scratch.environment
        environment["DATABASE_URL"] = "mysql://x"
        let expected = "testresult-service: invalid configuration: DATABASE_URL has unsupported scheme 'mysql' (use postgres://…, sqlite:///path/file.db or sqlite::memory:)\n"
        for words in [[], ["serve"], ["labs", "list"]] {
            let run = try await ServiceProcess.capture("testresult-service", words, environment: environment, timeout: .seconds(20))
            #expect(run.status == 2)
            #expect(run.standardError == expected, "\(run.standardError)")
        }
        let flag = try await ServiceProcess.capture("testresult-service", ["labs", "list", "--database-url", "mysql://x"], environment: scratch.environment)
        #expect(flag.status == 2)
        #expect(flag.standardError == expected)
        // The flag wins: a good URL given as a flag over the bad variable.
        let wins = try await ServiceProcess.capture("testresult-service", ["labs", "list", "--database-url=sqlite::memory:"], environment: environment)
        #expect(wins.status == 0, "\(wins.standardError)")
        #expect(wins.standardOutput == "No lab credentials.\n")
        let portal = try await ServiceProcess.capture("portal-service", ["users", "list", "--bcrypt-cost", "99"], environment: scratch.environment)
        #expect(portal.status == 2)
        #expect(portal.standardError == "portal-service: invalid configuration: BCRYPT_COST must be between 4 and 31, got 99\n")
    }

    /// `serve` without a setting that only serving needs (the tokens of the services it calls or answers, the teleTAN
    /// hash keys, every key it signs or seals with, none of which a service makes) stops with one line naming it and
    /// exit code 2, before it opens its database or writes a file: the
    /// portal used to make its HTTP client first and crash in a debug build ("Client not shut down before the
    /// deinit"), test-result and submission to migrate their database first.
    @Test(arguments: [
        ("verification-service", "INTERNAL_API_TOKENS"), ("verification-service", "TESTRESULT_API_TOKEN"),
        ("verification-service", "TELETAN_HASH_KEYS"), ("testresult-service", "INTERNAL_API_TOKENS"),
        ("submission-service", "VERIFICATION_API_TOKEN"), ("submission-service", "SIGNING_KEY_FILE"),
        ("submission-service", "COVIDSHIELD_KEY_ENCRYPTION_KEY"), ("submission-service", "COVIDSHIELD_RETRIEVE_HMAC_KEY"),
        ("submission-service", "PROTEGO_SIGNING_KEY_FILE"),
        ("portal-service", "VERIFICATION_API_TOKEN"), ("portal-service", "PORTAL_SIGNING_KEY_FILE"), ("portal-service", "TOTP_ENCRYPTION_KEY"),
    ])
    func serveWithoutARequiredSettingExits2BeforeTouchingAnything(executable: String, variable: String) async throws {
        let scratch = try Scratch().make()
        defer { scratch.remove() }
        var environment = scratch.environment
        environment["TELETAN_HASH_KEYS"] = TestServices.teleTANHashKeys
        environment[variable] = nil
        environment[variable + "_FILE"] = nil
        let run = try await ServiceProcess.capture(
            executable, ["serve"], environment: environment, timeout: .seconds(20), workingDirectory: scratch.directory
        )
        #expect(!run.timedOut)
        #expect(run.status == 2, "\(run.standardOutput)\(run.standardError)")
        #expect(run.standardError.hasPrefix("\(executable): invalid configuration: \(variable) "), "\(run.standardError)")
        #expect(run.standardError.filter { $0 == "\n" }.count == 1, "\(run.standardError)")
        #expect(scratch.contents.isEmpty, "\(executable) serve without \(variable) wrote \(scratch.contents)")
    }

    /// A `NAME_FILE` that cannot be used stops the command: `DATABASE_URL_FILE=/nonexistent testresult-service migrate`
    /// used to exit 0 after migrating a fresh SQLite file at the default path.
    @Test func anUnreadableFileSettingStopsMigrateBeforeItWritesAnything() async throws {
        let scratch = try Scratch().make()
        defer { scratch.remove() }
        var environment = scratch.environment
        environment["DATABASE_URL"] = nil
        environment["DATABASE_URL_FILE"] = "/nonexistent"
        let run = try await ServiceProcess.capture(
            "testresult-service", ["migrate"], environment: environment, timeout: .seconds(20), workingDirectory: scratch.directory
        )
        #expect(run.status == 2, "\(run.standardOutput)\(run.standardError)")
        #expect(run.standardError == "testresult-service: invalid configuration: DATABASE_URL_FILE names /nonexistent, which does not exist or cannot be reached\n")
        #expect(scratch.contents.isEmpty, "migrate wrote \(scratch.contents)")
    }

    /// A PostgreSQL server that is not there is said in words, in one line, within `DATABASE_TIMEOUT`: nothing
    /// listening and a name that does not resolve are retried until then, and no more. Before, about thirty retries
    /// ended in the pool's `connectionCreationCircuitBreakerTripped`, whatever `DATABASE_TIMEOUT` said.
    @Test func aDatabaseServerThatIsNotThereIsSaidInWords() async throws {
        let port = ServiceProcess.freePort()
        try await expectMigrateRefuses([
            ("postgres://exposure@127.0.0.1:\(port)/exposure", "connection refused at 127.0.0.1:\(port): nothing listens there"),
            ("postgres://exposure@no-such-host.invalid:5432/exposure", "the host name no-such-host.invalid does not resolve"),
        ])
    }

    /// A server that refuses the role or has no such database stops the command at once with the server's reason,
    /// where a wrong password used to be retried as if the server were still starting.
    @Test func aRoleOrDatabaseTheServerDoesNotHaveIsSaidInWords() async throws {
        guard TestDatabase.all.contains(.postgres) else { return }
        var server = try #require(URLComponents(string: PostgresTestServer.adminURL().connectionString))
        let place = "\(server.host ?? ""):\(server.port ?? 5432)"
        server.path = "/no_such_database"
        let missingDatabase = try #require(server.string)
        server.path = "/postgres"
        server.user = "no_such_role"
        let missingRole = try #require(server.string)
        try await expectMigrateRefuses([
            (missingDatabase, "database no_such_database does not exist at \(place)"),
            (missingRole, "authentication failed for user no_such_role at \(place): the server said"),
        ])
    }

    /// `testresult-service migrate` with each `DATABASE_URL` exits 1 with one last line that says `expected`.
    func expectMigrateRefuses(_ cases: [(url: String, expected: String)]) async throws {
        let scratch = try Scratch().make()
        defer { scratch.remove() }
        var environment = scratch.environment
        environment["DATABASE_TIMEOUT"] = "2s"
        for (url, expected) in cases {
            environment["DATABASE_URL"] = url
            let run = try await ServiceProcess.capture("testresult-service", ["migrate"], environment: environment, timeout: .seconds(30))
            #expect(!run.timedOut)
            #expect(run.status == 1, "\(run.standardError)")
            let last = run.standardError.split(separator: "\n").last.map(String.init) ?? ""
            #expect(last.hasPrefix("testresult-service migrate: cannot use the database at "), "\(last)")
            #expect(last.contains(expected), "\(url): \(last)")
            #expect(!(run.standardOutput + run.standardError).contains("CircuitBreaker"), "\(run.standardError)")
        }
    }

    /// No service makes a key; `exposure-suite development-keys` makes the suite's for a trial of the separate services
    /// (the compose file's `keys` service): private files, the portal key's public half beside them, the settings that
    /// name them printed, never a key; a second run keeps every key.
    @Test func developmentKeysAreMadeOncePrivatelyAndNeverPrinted() async throws {
        let scratch = try Scratch().make()
        defer { scratch.remove() }
        let folder = scratch.directory.appendingPathComponent("keys")
        let first = try await ServiceProcess.capture("exposure-suite", ["development-keys", folder.path], environment: scratch.environment)
        #expect(first.status == 0, "\(first.standardError)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == [
            "covidshield-key-encryption-key", "covidshield-retrieve-hmac-key", "export-signing-key.pem", "portal-signing-key.pem",
            "portal-signing-key.pub.pem", "portal-totp-key.hex", "protego-signing-key.pem", "signing-key-encryption-key",
        ])
        var contents: [String: String] = [:]
        for name in names {
            let path = folder.appendingPathComponent(name).path
            let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
            #expect(mode == (name.hasSuffix(".pub.pem") ? 0o644 : 0o600), "\(name): \(String(mode ?? 0, radix: 8))")
            contents[name] = try String(contentsOfFile: path, encoding: .utf8)
            if !name.hasSuffix(".pub.pem") {
                #expect(!first.standardOutput.contains(contents[name]!.trimmingCharacters(in: .whitespacesAndNewlines)))
            }
        }
        #expect(first.standardOutput.contains("SIGNING_KEY_FILE=\(folder.path)/export-signing-key.pem"))
        #expect(first.standardOutput.contains("TOTP_ENCRYPTION_KEY_FILE=\(folder.path)/portal-totp-key.hex"))
        let second = try await ServiceProcess.capture("exposure-suite", ["development-keys", folder.path], environment: scratch.environment)
        #expect(second.status == 0)
        for name in names { #expect(try String(contentsOfFile: folder.appendingPathComponent(name).path, encoding: .utf8) == contents[name]) }
    }

    /// A database the service makes is its user's alone: its folder 0700, the file and its -wal and -shm 0600; a file
    /// an older version left readable by others is made private on the next start.
    @Test func theDatabaseAndItsFolderArePrivate() async throws {
        let scratch = try Scratch().make()
        defer { scratch.remove() }
        let folder = scratch.directory.appendingPathComponent("db/nested")
        var environment = scratch.environment
        environment["DATABASE_URL"] = "sqlite://\(folder.path)/testresult.db"
        let first = try await ServiceProcess.capture("testresult-service", ["migrate"], environment: environment, timeout: .seconds(20))
        #expect(first.status == 0, "\(first.standardError)")
        func mode(_ path: String) throws -> Int { try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int ?? -1 }
        #expect(try mode(folder.path) == 0o700)
        #expect(try mode(scratch.directory.appendingPathComponent("db").path) == 0o700)
        let database = folder.appendingPathComponent("testresult.db").path
        for file in [database, database + "-wal", database + "-shm"] where FileManager.default.fileExists(atPath: file) {
            #expect(try mode(file) == 0o600, "\(file)")
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: database)
        let again = try await ServiceProcess.capture("testresult-service", ["labs", "list"], environment: environment, timeout: .seconds(20))
        #expect(again.status == 0, "\(again.standardError)")
        #expect(try mode(database) == 0o600)
    }

    /// `verification-service issuers` as an operator runs it: `add` prints the token once, `list` shows the issuer
    /// without it, a wrong kind is a usage error, `remove` removes.
    @Test func issuersAreAddedListedAndRemoved() async throws {
        let scratch = try Scratch().make()
        defer { scratch.remove() }
        var environment = scratch.environment
        environment["TELETAN_HASH_KEYS"] = "k1:" + Data(repeating: 7, count: 32).base64EncodedString()
        let added = try await ServiceProcess.capture("verification-service", ["issuers", "add", "--name", "ontario-ha", "--kind", "covidshield"], environment: environment)
        try #require(added.status == 0, "\(added.standardError)")
        #expect(added.standardOutput.contains("Issuer ontario-ha can now issue COVIDSHIELD codes for region ON"))
        let token = try #require(added.standardOutput.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("iss_") })
        let listed = try await ServiceProcess.capture("verification-service", ["issuers", "list", "--json"], environment: environment)
        #expect(listed.status == 0)
        #expect(listed.standardOutput.contains(#""name":"ontario-ha""#) && !listed.standardOutput.contains(token))
        let wrong = try await ServiceProcess.capture("verification-service", ["issuers", "add", "--name", "x", "--kind", "lemon"], environment: environment)
        #expect(wrong.status == 64)
        #expect(wrong.standardError.contains("covidshield or protego"), "\(wrong.standardError)")
        let removed = try await ServiceProcess.capture("verification-service", ["issuers", "remove", "--name", "ontario-ha"], environment: environment)
        #expect(removed.status == 0 && removed.standardOutput == "Removed issuer ontario-ha.\n")
        let empty = try await ServiceProcess.capture("verification-service", ["issuers", "list"], environment: environment)
        #expect(empty.standardOutput == "No issuers.\n")
    }

    /// `labs list --json` prints one JSON document whose rows are the table's; the table is unchanged.
    @Test func labsListAsJSONHasTheRowsOfTheTable() async throws {
        let scratch = try Scratch().make()
        defer { scratch.remove() }
        let environment = scratch.environment
        let empty = try await ServiceProcess.capture("testresult-service", ["labs", "list", "--json"], environment: environment)
        #expect(empty.status == 0)
        #expect(empty.standardOutput == "{\"credentials\":[]}\n")
        for words in [["labs", "add", "lab-a"], ["labs", "add-cert", "lab-b", String(repeating: "ab", count: 32)], ["labs", "revoke", "lab-a"]] {
            let run = try await ServiceProcess.capture("testresult-service", words, environment: environment)
            try #require(run.status == 0, "\(words): \(run.standardError)")
        }
        let table = try await ServiceProcess.capture("testresult-service", ["labs", "list"], environment: environment)
        let json = try await ServiceProcess.capture("testresult-service", ["labs", "list", "--json"], environment: environment)
        try #require(table.status == 0 && json.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(Array(document.keys) == ["credentials"])
        let rows = try #require(document["credentials"] as? [[String: Any]])
        let lines = table.standardOutput.split(separator: "\n").dropFirst().map { $0.split(separator: "\t").map(String.init) }
        try #require(rows.count == 2 && lines.count == 2, "\(table.standardOutput)\n\(json.standardOutput)")
        for (row, line) in zip(rows, lines) {
            #expect(Set(row.keys) == ["labId", "kind", "fingerprint", "createdAt", "state", "revokedAt", "lastUsed"])
            let revokedAt = row["revokedAt"] as? String
            #expect(line == [
                row["labId"] as? String ?? "?",
                "\(row["kind"] as? String ?? "?") \(row["fingerprint"] as? String ?? "?")…",
                "created \(row["createdAt"] as? String ?? "?")",
                revokedAt.map { "revoked \($0)" } ?? "active",
                row["lastUsed"] as? String ?? "never",
            ])
            // Neither credential was used: the command line adds them, no lab posted.
            #expect(row["lastUsed"] is NSNull)
            #expect(row["state"] as? String == (revokedAt == nil ? "active" : "revoked"))
        }
        #expect(rows.map { $0["labId"] as? String } == ["lab-a", "lab-b"])
        #expect(rows.first?["revokedAt"] is String)
        #expect(rows.last?["revokedAt"] is NSNull)
    }
}
