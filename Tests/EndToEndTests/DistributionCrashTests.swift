import Crypto
import ExposureCore
import ExposureTestSupport
import Foundation
import SQLKit
import Testing

/// `submission-service distribute` killed (kill -9) at exact points of publishing the export tree to an object store,
/// one after another, each run resuming the tree the killed one left, then run to completion: the tree a CDN serves is
/// consistent after each kill, a resumed run rewrites nothing published, the lock a killed run held does not block the
/// next one, and the completed tree is the one an uninterrupted run publishes.
///
/// The kill points do not depend on the machine's speed: the runs publish through `ObjectStoreHoldingProxy`, which
/// holds the PUT of a key chosen from an uninterrupted run's sequence (a third and two thirds of the key files, the
/// last key file, an index midway), and the process is killed while that PUT is held. Every earlier object is then
/// stored and none after it. The order is the distributor's for either target (key files, then the indexes naming
/// them); the directory target's own part, writing each file under a temporary name and renaming it, is
/// `DistributionRulesTests.treeWriterIsAtomicAndKeepsPublishedFiles`'s.
@Suite(.serialized, .enabled(if: MotoServer.testsRun)) struct DistributionCrashTests {
    /// Spread over nine days with at most 100 keys a file: daily files of several parts, some 90 PUTs a run.
    static let keyCount = 3_000
    static let maxKeysPerFile = 100

    /// Where a run is killed: while the PUT of the reference run's `index`-th object is held.
    struct KillPoint: CustomStringConvertible {
        let name: String
        let index: Int
        var description: String { "\(name) (PUT \(index + 1))" }
    }

    /// What one kill left, observed before any verdict (a verdict waits until the attempt stayed within one hour).
    struct Killed {
        let point: KillPoint
        let key: String
        let held: Bool
        let log: String
        /// What the killed run PUT before it was held: the PUTs after the previous kill point, none repeated.
        let forwarded: [String]
        let bucket: [String]
        let consistency: String?
        let independent: IndependentTreeCheck.Report
    }

    struct Attempt {
        var reference: [String] = []
        var firstIndex = 0
        var kills: [Killed] = []
        var completed: ExportTreeCheck.Reachable?
        var expected: ExportTreeCheck.Reachable?
        var completedIndependently: IndependentTreeCheck.Report?
        var expectedIndependently: IndependentTreeCheck.Report?
        var wrongSecondKey: IndependentTreeCheck.Report?
        var appConfigPublished = false
    }

    @Test(arguments: TestDatabase.all)
    func aDistributionKilledAtEachPointLeavesAConsistentTreeThatTheNextRunCompletes(kind: TestDatabase) async throws {
        try await kind.withFreshDatabaseURL { url in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("distribution-crash-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            // Two signing keys, as during a rotation: every file carries two signatures, each checked with its key.
            let signingKeys = [P256.Signing.PrivateKey(), P256.Signing.PrivateKey()]
            let keyFiles = try signingKeys.enumerated().map { number, key in
                let file = directory.appendingPathComponent("signing-key-\(number + 1).pem")
                try SecretFile.write(key.pemRepresentation, to: file)
                return file
            }
            let publicKeyFiles = try signingKeys.enumerated().map { number, key in
                let file = directory.appendingPathComponent("signing-key-\(number + 1).pub.pem")
                try key.publicKey.pemRepresentation.write(to: file, atomically: true, encoding: .utf8)
                return file
            }
            let proxy = ObjectStoreHoldingProxy()
            try await MotoServer.run { moto in
                let proxies = await RunningServices.start([proxy.bundle(upstream: moto.endpoint)], logger: TestLogger.quiet)
                let proxyPort = await proxies.bundle(proxy.name).port(proxy.listener)
                let distribution = Distribution(
                    directory: directory, database: url, signingKeyFiles: keyFiles, maxKeysPerFile: Self.maxKeysPerFile,
                    store: moto, storeEndpoint: URL(string: "http://127.0.0.1:\(proxyPort)")!
                )
                do {
                    let migrated = try await ServiceProcess.run("submission-service", ["migrate"], environment: distribution.environment(bucket: "unused"))
                    try #require(migrated.status == 0, "\(migrated.output)")
                    try await Self.insertRandomKeys(Self.keyCount, into: url)

                    // The planner's output depends on the hour: an attempt that crossed one is made again.
                    var attempt: Attempt?
                    for number in 1...3 {
                        let hour = Date().epochSeconds / 3600
                        let made = try await Self.attempt(
                            number, distribution: distribution, proxy: proxy, moto: moto, directory: directory,
                            publicKeys: signingKeys.map(\.publicKey), publicKeyFiles: publicKeyFiles
                        )
                        if Date().epochSeconds / 3600 == hour {
                            attempt = made
                            break
                        }
                    }
                    Self.judge(try #require(attempt, "three attempts crossed an hour boundary"))
                } catch {
                    proxy.releaseHeld()
                    await proxies.stop()
                    throw error
                }
                proxy.releaseHeld()
                await proxies.stop()
            }
        }
    }

    /// One reference run, the killed runs, the completing run and a second reference, on fresh buckets.
    static func attempt(
        _ number: Int, distribution: Distribution, proxy: ObjectStoreHoldingProxy, moto: MotoServer, directory: URL,
        publicKeys: [P256.Signing.PublicKey], publicKeyFiles: [URL]
    ) async throws -> Attempt {
        var attempt = Attempt()
        let referenceBucket = "reference-\(number)"
        let bucket = "exports-\(number)"
        try await moto.client(bucket: referenceBucket).createBucket()
        try await moto.client(bucket: bucket).createBucket()

        // An uninterrupted run first: the sequence of PUTs the kill points are chosen from.
        proxy.clearRecord()
        try await distribution.runToCompletion(bucket: referenceBucket)
        attempt.reference = proxy.forwardedPuts
        // The first PUT that is neither a key file nor a bundle's list of parts: the indexes begin.
        attempt.firstIndex = attempt.reference.firstIndex { !$0.contains(/\/date\/\d{4}-\d{2}-\d{2}(\/hour\/\d+)?(\/part\/\d+|\/parts)?$/) }
            ?? attempt.reference.count
        guard attempt.firstIndex >= 6, attempt.firstIndex + 2 < attempt.reference.count else { return attempt }
        let points = [
            KillPoint(name: "a third of the key files", index: attempt.firstIndex / 3),
            KillPoint(name: "two thirds of the key files", index: attempt.firstIndex * 2 / 3),
            KillPoint(name: "the last key file, before any index", index: attempt.firstIndex - 1),
            KillPoint(name: "midway through the indexes", index: attempt.firstIndex + 1),
        ]
        let root = directory.appendingPathComponent("tree-\(number)")
        let tree = ExportTreeCheck(root: root, publicKeys: publicKeys)
        for point in points {
            let key = attempt.reference[point.index]
            proxy.clearRecord()
            let killed = try await distribution.kill(bucket: bucket, whilePutOf: key, isHeldBy: proxy)
            proxy.releaseHeld()
            try? FileManager.default.removeItem(at: root)
            let keys = try await moto.copyTree(bucket: bucket, to: root)
            var consistency: String?
            do {
                _ = try tree.check()
            } catch {
                consistency = "\(error)"
            }
            attempt.kills.append(Killed(
                point: point, key: key, held: killed.held, log: killed.log, forwarded: proxy.forwardedPuts, bucket: keys,
                consistency: consistency, independent: try await IndependentTreeCheck(root: root, publicKeyFiles: publicKeyFiles).run()
            ))
        }

        // The next run completes the tree; the killed runs' lock (a file lock on SQLite, a session advisory lock on
        // PostgreSQL) does not stop it. A second reference, on a bucket of its own, is then taken in the same hour.
        try await distribution.runToCompletion(bucket: bucket)
        let secondReference = "reference-\(number)-again"
        try await moto.client(bucket: secondReference).createBucket()
        try await distribution.runToCompletion(bucket: secondReference)
        try? FileManager.default.removeItem(at: root)
        try await moto.copyTree(bucket: bucket, to: root)
        let referenceRoot = directory.appendingPathComponent("reference-\(number)")
        try await moto.copyTree(bucket: secondReference, to: referenceRoot)
        let reference = ExportTreeCheck(root: referenceRoot, publicKeys: publicKeys)
        attempt.completed = try? tree.check()
        attempt.expected = try? reference.check()
        attempt.completedIndependently = try await IndependentTreeCheck(root: root, publicKeyFiles: publicKeyFiles).run()
        attempt.expectedIndependently = try await IndependentTreeCheck(root: referenceRoot, publicKeyFiles: publicKeyFiles).run()
        // The independent check reads the second signature too: with another key in its place it fails.
        let unrelatedKey = directory.appendingPathComponent("unrelated.pub.pem")
        try P256.Signing.PrivateKey().publicKey.pemRepresentation.write(to: unrelatedKey, atomically: true, encoding: .utf8)
        attempt.wrongSecondKey = try await IndependentTreeCheck(root: root, publicKeyFiles: [publicKeyFiles[0], unrelatedKey]).run()
        attempt.appConfigPublished = tree.exists("version/v1/configuration/country/DE/app_config")
        return attempt
    }

    static func judge(_ attempt: Attempt) {
        print("distribution kill points: \(attempt.reference.count) PUTs a run, the indexes from PUT \(attempt.firstIndex + 1)")
        #expect(attempt.firstIndex >= 6 && attempt.firstIndex + 2 < attempt.reference.count, "too few PUTs to choose kill points from: \(attempt.reference)")
        var previous = 0
        for killed in attempt.kills {
            let point = killed.point
            #expect(killed.held, "\(point): the run ended before it PUT \(killed.key):\n\(killed.log)")
            // Exactly the objects before the held one are out, and the killed run PUT only those the run before it
            // had not: nothing published is written again.
            #expect(Set(killed.bucket) == Set(attempt.reference[..<point.index]), "\(point): the bucket holds \(killed.bucket)")
            #expect(killed.forwarded == Array(attempt.reference[previous..<point.index]), "\(point): the run PUT \(killed.forwarded)")
            #expect(killed.consistency == nil, "killed at \(point), the tree is inconsistent: \(killed.consistency ?? "")")
            #expect(killed.independent.problems.isEmpty, "killed at \(point): \(killed.independent.problems)")
            previous = point.index
        }
        #expect(attempt.kills.count == 4)

        let completed = attempt.completed, expected = attempt.expected
        #expect(completed != nil && completed == expected, "the completed tree differs from an uninterrupted run's")
        // The independent reader agrees: the same files reachable, with the same contents, and nothing wrong; the
        // indexes name exactly the key files there are, none left out by the killed runs.
        guard let completedIndependently = attempt.completedIndependently, let expectedIndependently = attempt.expectedIndependently else { return }
        #expect(completedIndependently.problems.isEmpty && expectedIndependently.problems.isEmpty,
                "\(completedIndependently.problems) \(expectedIndependently.problems)")
        #expect(completedIndependently.unlisted.isEmpty, "no index names \(completedIndependently.unlisted)")
        #expect(expectedIndependently.unlisted.isEmpty, "no index names \(expectedIndependently.unlisted)")
        #expect(completedIndependently == expectedIndependently)
        #expect(completedIndependently.files.count == completed?.files.count)
        #expect(completed?.dates.isEmpty == false)
        #expect((completed?.files.count ?? 0) > 20)
        #expect(attempt.appConfigPublished)
        let wrong = attempt.wrongSecondKey?.problems ?? []
        #expect(!wrong.isEmpty && wrong.allSatisfy { $0.contains("signature 2") }, "checked with a wrong second key: \(wrong)")
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

/// `submission-service distribute` as an operator's scheduler runs it, publishing to a bucket through `storeEndpoint`.
struct Distribution {
    let directory: URL
    let database: DatabaseURL
    /// The first is `SIGNING_KEY_FILE`, the others `SIGNING_ADDITIONAL_KEY_FILES` as versions v2, v3, …
    let signingKeyFiles: [URL]
    let maxKeysPerFile: Int
    let store: MotoServer
    let storeEndpoint: URL

    func environment(bucket: String) -> [String: String] {
        var environment = [
            "DATABASE_URL": database.connectionString, "DATA_DIR": directory.path, "LOG_LEVEL": "info",
            // The SQLite variant's lock file lives here.
            "EXPORT_DIR": directory.appendingPathComponent("lock").path,
            "SIGNING_KEY_FILE": signingKeyFiles[0].path, "MAX_KEYS_PER_FILE": "\(maxKeysPerFile)",
        ]
        if signingKeyFiles.count > 1 {
            environment["SIGNING_ADDITIONAL_KEY_FILES"] = signingKeyFiles.dropFirst().enumerated()
                .map { "\($1.path)|v\($0 + 2)" }.joined(separator: ",")
        }
        environment.merge(store.settings(bucket: bucket)) { $1 }
        environment["EXPORT_S3_ENDPOINT"] = storeEndpoint.absoluteString
        return environment
    }

    /// Runs once to its end. On PostgreSQL the session lock of a run killed a moment ago is released when the
    /// server notices the dead connection; until then the run says another replica is running it, so it is
    /// repeated. The deadline only ends a hang: a lock that outlived its holder would fail here.
    func runToCompletion(bucket: String) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        var output = ""
        while ContinuousClock.now < deadline {
            let run = try await ServiceProcess.run("submission-service", ["distribute"], environment: environment(bucket: bucket))
            output = run.output
            try #require(run.status == 0, "distribute exited with \(run.status):\n\(run.output)")
            if run.output.contains("Published to") { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        Issue.record("no run completed within 120 s; last output:\n\(output)")
    }

    /// Starts a run and kills it (SIGKILL) once `proxy` holds its PUT of `key`. `held` is false when the run ended by
    /// itself first (as it does when an hour boundary changed the plan). A run that found the lock still taken is
    /// started again, as in `runToCompletion`.
    func kill(bucket: String, whilePutOf key: String, isHeldBy proxy: ObjectStoreHoldingProxy) async throws -> (held: Bool, log: String) {
        proxy.holdPut(of: key)
        // Only ends a hang: the verdict is whether the PUT was held, never how long that took.
        let deadline = ContinuousClock.now + .seconds(300)
        var log = ""
        while ContinuousClock.now < deadline {
            let process = try ServiceProcess("submission-service", arguments: ["distribute"], environment: environment(bucket: bucket))
            while process.process.isRunning, proxy.held == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            let held = proxy.held == key
            process.kill()
            log = process.log
            if held { return (true, log) }
            guard log.contains("Another replica is running") else { return (false, log) }
            try await Task.sleep(for: .milliseconds(200))
        }
        return (false, log)
    }
}
