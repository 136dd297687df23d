import Crypto
import ExposureCore
import ExposureTestSupport
import Foundation
import SQLKit
import Testing

/// `submission-service distribute` killed (kill -9) midway through writing the export tree, twice, then run to
/// completion: the tree a CDN serves is consistent after each kill, the lock the killed run held does not block the
/// next one, and the completed tree is the one an uninterrupted run publishes.
@Suite(.serialized) struct DistributionCrashTests {
    /// Enough keys that one run in a debug build takes seconds, so that a kill lands while it writes.
    static let keyCount = 200_000

    @Test(arguments: TestDatabase.all)
    func aDistributionKilledMidwayLeavesAConsistentTreeThatTheNextRunCompletes(kind: TestDatabase) async throws {
        try await kind.withFreshDatabaseURL { url in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("distribution-crash-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let signingKey = P256.Signing.PrivateKey()
            let keyFile = directory.appendingPathComponent("signing-key.pem")
            try signingKey.pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
            let distribution = Distribution(directory: directory, database: url, signingKeyFile: keyFile)
            let publicKeyFile = directory.appendingPathComponent("signing-key.pub.pem")
            try signingKey.publicKey.pemRepresentation.write(to: publicKeyFile, atomically: true, encoding: .utf8)

            let migrated = try await ServiceProcess.run("submission-service", ["migrate"], environment: distribution.environment(exportDirectory: "unused"))
            try #require(migrated.status == 0, "\(migrated.output)")
            try await Self.insertRandomKeys(Self.keyCount, into: url)

            // An uninterrupted run first: the tree to expect, and how many files a run writes.
            let reference = ExportTreeCheck(root: directory.appendingPathComponent("reference"), publicKey: signingKey.publicKey)
            try await distribution.runToCompletion(into: reference.root)
            let fileCount = reference.allFiles().count
            try #require(fileCount > 20, "the reference run wrote only \(fileCount) files")

            let tree = ExportTreeCheck(root: directory.appendingPathComponent("exports"), publicKey: signingKey.publicKey)
            // Killed once a third of the files exist, then (the next run resuming) once two thirds do. Where exactly
            // the kill lands differs from run to run; the tree must be consistent wherever it does.
            for fraction in [1, 2] {
                let threshold = fileCount * fraction / 3
                let killed = try await distribution.kill(into: tree.root, onceFilesExist: threshold)
                #expect(killed.midway, "the run finished before \(threshold) of \(fileCount) files existed:\n\(killed.log)")
                let onDisk = tree.allFiles().count
                #expect(onDisk < fileCount, "killed with \(onDisk) of \(fileCount) files written")
                do {
                    _ = try tree.check()
                } catch {
                    Issue.record("after a kill at \(onDisk) of \(fileCount) files the tree is inconsistent: \(error)")
                }
                let independent = try await IndependentTreeCheck(root: tree.root, publicKeyFile: publicKeyFile).run()
                #expect(independent.problems.isEmpty, "after a kill at \(onDisk) of \(fileCount) files: \(independent.problems)")
            }

            // The next run completes the tree; the killed runs' lock (a file lock on SQLite, a session advisory lock
            // on PostgreSQL) does not stop it. The reference is taken again in the same hour, as the planner's
            // output depends on the hour.
            var completed: ExportTreeCheck.Reachable?
            var expected: ExportTreeCheck.Reachable?
            for _ in 0..<3 {
                let hour = Date().epochSeconds / 3600
                try await distribution.runToCompletion(into: tree.root)
                try? FileManager.default.removeItem(at: reference.root)
                try await distribution.runToCompletion(into: reference.root)
                guard Date().epochSeconds / 3600 == hour else { continue }
                completed = try tree.check()
                expected = try reference.check()
                break
            }
            let finalTree = try #require(completed, "three attempts crossed an hour boundary")
            #expect(finalTree == expected)
            // The independent reader agrees: the same files reachable, with the same contents, and nothing wrong; the
            // indexes name exactly the key files there are, none left out by the killed runs.
            let completedIndependently = try await IndependentTreeCheck(root: tree.root, publicKeyFile: publicKeyFile).run()
            let expectedIndependently = try await IndependentTreeCheck(root: reference.root, publicKeyFile: publicKeyFile).run()
            #expect(completedIndependently.problems.isEmpty && expectedIndependently.problems.isEmpty)
            #expect(completedIndependently.unlisted.isEmpty, "no index names \(completedIndependently.unlisted)")
            #expect(expectedIndependently.unlisted.isEmpty, "no index names \(expectedIndependently.unlisted)")
            #expect(completedIndependently == expectedIndependently)
            #expect(completedIndependently.files.count == finalTree.files.count)
            #expect(!finalTree.dates.isEmpty)
            #expect(finalTree.files.count > 20)
            #expect(tree.temporaryFiles().isEmpty, "left over: \(tree.temporaryFiles())")
            #expect(tree.exists("version/v1/configuration/country/DE/app_config"))
        }
    }

    /// Random keys straight into `diagnosis_keys`, as `scripts/bench-distribution.sh` does: submitted over the last
    /// nine days (complete hours only), valid on one of the last 13 days, risk levels 3 to 8.
    static func insertRandomKeys(_ count: Int, into url: DatabaseURL) async throws {
        let nowHour = Date().epochSeconds / 3600
        let todayInterval = Date().epochSeconds / 600 / 144 * 144
        let database = try await Database.connect(url, poolSize: 1, logger: TestLogger.quiet)
        let columns = """
            key_data, rolling_start_interval_number, rolling_period, transmission_risk_level, days_since_onset_of_symptoms, \
            report_type, origin_country, visited_countries, consent_to_federation, submission_type, submission_timestamp
            """
        let values = """
            \(todayInterval) - 144 * (1 + i % 13), 144, 3 + i % 6, 2, 1, 'DE', 'DE', \(database.dialect == .postgres ? "false" : "0"), 0, \
            \(nowHour) - 2 - i % 214
            """
        let statement = switch database.dialect {
        case .postgres:
            "INSERT INTO diagnosis_keys (\(columns)) SELECT decode(md5(random()::text || i::text), 'hex'), \(values) FROM generate_series(1, \(count)) AS i"
        case .sqlite:
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count)) "
                + "INSERT INTO diagnosis_keys (\(columns)) SELECT randomblob(16), \(values) FROM n"
        }
        do {
            try await database.withConnection { try await $0.raw("\(unsafeRaw: statement)").run() }
            let stored = try await database.withConnection { try await $0.raw("SELECT COUNT(*) AS n FROM diagnosis_keys").first()!.decode(column: "n", as: Int.self) }
            await database.shutdown()
            try #require(stored == count)
        } catch {
            await database.shutdown()
            throw error
        }
    }
}

/// `submission-service distribute` as an operator's scheduler runs it.
struct Distribution {
    let directory: URL
    let database: DatabaseURL
    let signingKeyFile: URL

    func environment(exportDirectory: String) -> [String: String] {
        [
            "DATABASE_URL": database.connectionString, "EXPORT_DIR": exportDirectory, "DATA_DIR": directory.path,
            "SIGNING_KEY_FILE": signingKeyFile.path, "LOG_LEVEL": "info",
        ]
    }

    /// Runs once to its end. On PostgreSQL the session lock of a run killed a moment ago is released when the
    /// server notices the dead connection; until then the run says another replica is running it, so it is
    /// repeated for a bounded time. A lock that outlived its holder would fail here.
    func runToCompletion(into root: URL) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        var output = ""
        while ContinuousClock.now < deadline {
            let run = try await ServiceProcess.run("submission-service", ["distribute"], environment: environment(exportDirectory: root.path))
            output = run.output
            try #require(run.status == 0, "distribute exited with \(run.status):\n\(run.output)")
            if run.output.contains("Published to") { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        Issue.record("no run completed within 20 s; last output:\n\(output)")
    }

    /// Starts a run and kills it (SIGKILL) as soon as `count` files exist in the tree. `midway` is false when the
    /// run ended by itself first.
    func kill(into root: URL, onceFilesExist count: Int) async throws -> (midway: Bool, log: String) {
        let process = try ServiceProcess("submission-service", arguments: ["distribute"], environment: environment(exportDirectory: root.path))
        let check = ExportTreeCheck(root: root, publicKey: P256.Signing.PrivateKey().publicKey)
        let deadline = ContinuousClock.now + .seconds(120)
        while process.process.isRunning, check.allFiles().count < count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(2))
        }
        process.kill()
        return (process.process.terminationReason == .uncaughtSignal, process.log)
    }
}
