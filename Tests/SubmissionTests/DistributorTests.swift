import Crypto
import ExposureCore
import ExposureProtocol
import ExposureTestSupport
import Foundation
@testable import SubmissionDomain
import Testing
@testable import Submission
@testable import SubmissionCore

/// Distribution runs on keys stored through the real submission endpoint, into a temporary export tree.
@Suite struct DistributorTests {
    struct Run {
        let distributor: Distributor
        let writer: ExportTreeWriter
        let layout: ExportTreeLayout
        let key: P256.Signing.PrivateKey
    }

    func withDistributor(_ h: SubmissionHarness, settings extra: [String: String] = [:], _ body: (Run) async throws -> Void) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("exports-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        var variables = ["EXPORT_DIR": root.path, "SHIFTING_THRESHOLD": "1"]
        variables.merge(extra) { $1 }
        let configuration = try DistributionConfiguration(TestServices.settings(variables), country: "DE")
        let key = P256.Signing.PrivateKey()
        let signer = ExportSigner(privateKey: key, signatureInfo: ExportSigner.signatureInfo(appBundleID: "app", keyVersion: "v1", keyID: "262"))
        try await body(Run(
            distributor: Distributor(configuration: configuration, database: h.database, signers: ExportSignerSet(signer), logger: TestLogger.quiet),
            writer: ExportTreeWriter(root: root), layout: configuration.layout, key: key
        ))
    }

    /// Uploads `count` keys (one per day before today) with a fresh TAN.
    func upload(_ h: SubmissionHarness, count: Int, firstByte: UInt8, risk: Int32 = 6) async throws {
        let keys = (0..<count).map { Payloads.key(firstByte &+ UInt8($0), today: h.today, daysAgo: Int32($0 + 1), risk: risk) }
        let response = try await h.submit(Payloads.bytes(keys), tan: h.verification.issue())
        #expect(response.status == 200)
    }

    func json(_ run: Run, _ path: String) throws -> Any {
        try JSONSerialization.jsonObject(with: try run.writer.read(path), options: [.fragmentsAllowed])
    }

    @Test(arguments: TestDatabase.all)
    func publishesSignedHourlyAndDailyFilesWithIndexes(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { h in
            try await upload(h, count: 5, firstByte: 10)
            try await upload(h, count: 2, firstByte: 100, risk: 2)  // below the minimum risk level: never published
            try await withDistributor(h) { run in
                let submitted = h.clock.now()
                // Two hours later the submission hour is complete.
                h.clock.advance(by: 7200)
                let report = try await run.distributor.run(now: h.clock.now())
                #expect(report.keysRead == 5)
                #expect(report.keysPublished == 5)
                let day = submitted.epochSeconds / 86400
                let date = ExportTreeLayout.date(day: day)
                let hour = Int(submitted.epochSeconds / 3600 % 24)
                let zip = try run.writer.read(run.layout.hour(date, hour))
                let (binary, export, signatures) = try ExportArchive.read(zip)
                #expect(export.keys.count == 5)
                #expect(export.keys.map { $0.keyData.first! } == [10, 11, 12, 13, 14])
                #expect(export.keys.allSatisfy { $0.reportType == .confirmedClinicalDiagnosis && $0.daysSinceOnsetOfSymptoms == 2 })
                #expect(export.startTimestamp == UInt64(submitted.epochSeconds / 3600 * 3600))
                let signature = try P256.Signing.ECDSASignature(derRepresentation: try #require(signatures.signatures.first).signature)
                #expect(run.key.publicKey.isValidSignature(signature, for: binary))

                #expect(try json(run, run.layout.versionIndex) as? [String] == ["v1"])
                #expect(try json(run, run.layout.countryIndex) as? [String] == ["DE"])
                let hours = try json(run, run.layout.hourIndex(date)) as? [Int]
                #expect(hours?.contains(hour) == true)
                #expect(run.writer.exists(run.layout.appConfig))
                let dates = try #require(try json(run, run.layout.dateIndex) as? [String])
                #expect(dates.count == 14 && !dates.contains(ExportTreeLayout.date(day: h.clock.now().epochSeconds / 86400)))
            }
        }
    }

    @Test(arguments: TestDatabase.all)
    func publishedFilesAreNeverRewrittenAndRetentionPrunesTheTree(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { h in
            try await upload(h, count: 3, firstByte: 1)
            try await withDistributor(h) { run in
                let submitted = h.clock.now()
                let date = ExportTreeLayout.date(day: submitted.epochSeconds / 86400)
                let path = run.layout.hour(date, Int(submitted.epochSeconds / 3600 % 24))
                h.clock.advance(by: 3600)
                _ = try await run.distributor.run(now: h.clock.now())
                let first = try run.writer.read(path)
                // More keys for a later hour: the published hour is kept byte for byte.
                try await upload(h, count: 2, firstByte: 50)
                h.clock.advance(by: 3600)
                let second = try await run.distributor.run(now: h.clock.now())
                #expect(try run.writer.read(path) == first)
                #expect(second.filesAlreadyPublished > 0)
                // Three days later, hours of that day are gone but its daily file stays.
                h.clock.advance(by: 3 * 86400)
                _ = try await run.distributor.run(now: h.clock.now())
                #expect(!run.writer.exists(path))
                #expect(run.writer.exists(run.layout.day(date)))
                // After the daily window, the whole date goes.
                h.clock.advance(by: 15 * 86400)
                _ = try await run.distributor.run(now: h.clock.now())
                #expect(!run.writer.exists(run.layout.day(date)))
            }
        }
    }

    /// An hourly run reads the keys still waiting and those of the files it writes, not every key of the window; a
    /// lost daily file is written again with all of its day's keys.
    @Test(arguments: TestDatabase.all)
    func aRunReadsOnlyTheKeysOfTheFilesItWrites(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { h in
            // 03:02 on the next day: the keys' validity ended yesterday, so they can be published from 04:00 on, and
            // the runs below stay within one day until the test ends it.
            h.clock.set(Date(timeIntervalSince1970: TimeInterval((h.clock.now().epochSeconds / 86400 + 1) * 86400 + 3 * 3600 + 120)))
            try await upload(h, count: 5, firstByte: 10)
            try await withDistributor(h) { run in
                let submitted = h.clock.now()
                let date = ExportTreeLayout.date(day: submitted.epochSeconds / 86400)
                h.clock.advance(by: 3600)
                #expect(try await run.distributor.run(now: h.clock.now()).keysRead == 5)
                // The next hour: nothing waits and no file to write holds a placed key.
                h.clock.advance(by: 3600)
                let quiet = try await run.distributor.run(now: h.clock.now())
                #expect(quiet.keysRead == 0)
                #expect(quiet.filesWritten == 1 && quiet.filesAlreadyPublished > 14)
                // Two keys more: read while they wait, then published.
                try await upload(h, count: 2, firstByte: 50)
                h.clock.advance(by: 3600)
                #expect(try await run.distributor.run(now: h.clock.now()).keysRead == 2)

                // The day ends: its daily file is written from the seven keys placed in its hours.
                let nextDay = (submitted.epochSeconds / 86400 + 1) * 86400
                h.clock.advance(by: TimeInterval(nextDay - h.clock.now().epochSeconds + 60))
                #expect(try await run.distributor.run(now: h.clock.now()).keysRead == 7)
                let daily = try ExportArchive.read(try run.writer.read(run.layout.day(date))).export.keys.map { $0.keyData.first! }
                #expect(daily.sorted() == [10, 11, 12, 13, 14, 50, 51])
                #expect(try await run.distributor.run(now: h.clock.now()).keysRead == 0)
                // Lost (a tree restored from an old copy): written again, with the same keys. Only the daily file
                // goes; the folder of its name also holds the day's hours.
                try FileManager.default.removeItem(at: run.writer.fileURL(run.layout.day(date)))
                let repair = try await run.distributor.run(now: h.clock.now())
                #expect(repair.keysRead == 7 && repair.filesWritten == 1)
                #expect(try ExportArchive.read(try run.writer.read(run.layout.day(date))).export.keys.map { $0.keyData.first! } == daily)
            }
        }
    }

    @Test(arguments: TestDatabase.all)
    func aRunKilledMidwayIsCompletedByTheNext(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { h in
            try await upload(h, count: 4, firstByte: 1)
            try await withDistributor(h) { run in
                h.clock.advance(by: 3600)
                _ = try await run.distributor.run(now: h.clock.now())
                // Simulate a crash after some key files: indexes and half-written temporaries are lost or left over.
                let dateIndex = run.writer.fileURL(run.layout.dateIndex)
                try FileManager.default.removeItem(at: dateIndex)
                let leftover = dateIndex.deletingLastPathComponent().appendingPathComponent(".index.crashed.tmp")
                try Data("half".utf8).write(to: leftover)
                let next = try await run.distributor.run(now: h.clock.now())
                #expect(next.filesWritten == 0)
                #expect(run.writer.exists(run.layout.dateIndex))
                #expect(!FileManager.default.fileExists(atPath: leftover.path))
            }
        }
    }

    @Test(arguments: TestDatabase.all)
    func overLargeBundlesAreSplitIntoBatches(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { h in
            try await upload(h, count: 5, firstByte: 1)
            try await withDistributor(h, settings: ["MAX_KEYS_PER_FILE": "2"]) { run in
                let submitted = h.clock.now()
                let path = run.layout.hour(ExportTreeLayout.date(day: submitted.epochSeconds / 86400), Int(submitted.epochSeconds / 3600 % 24))
                h.clock.advance(by: 3600)
                _ = try await run.distributor.run(now: h.clock.now())
                #expect(try json(run, run.layout.parts(path)) as? [Int] == [1, 2, 3])
                var total = 0
                for number in 1...3 {
                    let (_, export, _) = try ExportArchive.read(try run.writer.read(number == 1 ? path : run.layout.part(path, number)))
                    #expect(export.batchNum == Int32(number) && export.batchSize == 3)
                    total += export.keys.count
                }
                #expect(total == 5)
            }
        }
    }

    /// Every replica schedules the job: in one interval one run writes the tree however many replicas ask, one after
    /// another or restarted; the next interval runs again.
    @Test(arguments: TestDatabase.all)
    func aScheduledRoundRunsOncePerIntervalAcrossReplicas(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { h in
            try await upload(h, count: 2, firstByte: 40)
            try await withDistributor(h) { run in
                let replica = Distributor(
                    configuration: run.distributor.configuration, database: h.database, signers: run.distributor.signers, logger: TestLogger.quiet
                )
                let interval = Duration.seconds(3600)
                // A minute into an hour two hours ahead, so that the keys' hour has ended and the calls below stay
                // inside one interval.
                let hour = (h.clock.now().timeIntervalSince1970 / 3600).rounded(.down) + 2
                let round = Date(timeIntervalSince1970: hour * 3600 + 60)
                let first = try await run.distributor.runScheduled(now: round, interval: interval)
                #expect(first?.keysRead == 2)
                #expect(try await replica.runScheduled(now: round.addingTimeInterval(5), interval: interval) == nil)
                #expect(try await run.distributor.runScheduled(now: round.addingTimeInterval(3_000), interval: interval) == nil)
                let next = try await replica.runScheduled(now: round.addingTimeInterval(3_600), interval: interval)
                #expect(next != nil)
                #expect(try await run.distributor.runScheduled(now: round.addingTimeInterval(3_605), interval: interval) == nil)
            }
        }
    }

    /// A round that finds another run under way (another replica's) skips; the round after it runs.
    @Test(arguments: TestDatabase.all)
    func aRoundSkipsWhileAnotherRunHoldsTheLock(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { h in
            try await upload(h, count: 2, firstByte: 30)
            try await withDistributor(h) { run in
                h.clock.advance(by: 7200)
                let started = Flag(), release = Flag()
                let other = Task {
                    try await ExclusiveJob.run(Distributor.jobName, on: h.database, lockFile: run.distributor.lockFile) {
                        started.set()
                        try await release.wait()
                    }
                }
                try await waitUntil { started.isSet }
                let skipped = try await run.distributor.runExclusively(now: h.clock.now())
                release.set()
                _ = try await other.value
                #expect(skipped == nil)
                let next = try await run.distributor.runExclusively(now: h.clock.now())
                #expect(next?.keysRead == 2)
            }
        }
    }
}

/// The key files checked by tools that share nothing with this code base: Python's zipfile and protobuf (from a
/// `.proto` written from the contract) to read them, OpenSSL to verify the signature.
@Suite struct IndependentExportCheckTests {
    @Test(arguments: TestDatabase.all)
    func pythonReadsAndOpenSSLVerifiesAPublishedFile(kind: TestDatabase) async throws {
        try await SubmissionHarness.run(kind) { h in
            let keys = (0..<3).map { Payloads.key(UInt8(200 + $0), today: h.today, daysAgo: Int32($0 + 1), risk: 7) }
            #expect(try await h.submit(Payloads.bytes(keys), tan: h.verification.issue()).status == 200)
            try await DistributorTests().withDistributor(h) { run in
                let submitted = h.clock.now()
                h.clock.advance(by: 3600)
                _ = try await run.distributor.run(now: h.clock.now())
                let path = run.layout.hour(ExportTreeLayout.date(day: submitted.epochSeconds / 86400), Int(submitted.epochSeconds / 3600 % 24))

                let work = FileManager.default.temporaryDirectory.appendingPathComponent("check-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: work) }
                let fixtures = WireCompatibilityTests.fixtures
                _ = try await WireCompatibilityTests.run(["protoc", "--python_out=\(work.path)", "-I", fixtures.path, "export_contract.proto"])
                let report = try await WireCompatibilityTests.run([
                    WireCompatibilityTests.python, fixtures.appendingPathComponent("read_export.py").path,
                    work.path, run.writer.fileURL(path).path, work.path,
                ])
                let json = try #require(try JSONSerialization.jsonObject(with: report) as? [String: Any])
                #expect(json["entries"] as? [String] == ["export.bin", "export.sig"])
                #expect(json["region"] as? String == "DE")
                #expect(json["algorithm"] as? String == "1.2.840.10045.4.3.2")
                #expect(json["keys"] as? [String] == keys.map { Data($0.keyData).map { String(format: "%02x", $0) }.joined() })
                #expect(json["reportTypes"] as? [Int] == [1, 1, 1])
                #expect(json["daysSinceOnset"] as? [Int] == [1, 1, 1])

                #expect(try ExternalTool.opensslVerifiesOnlyTheSignedBytes(
                    work.appendingPathComponent("export.bin"), signature: work.appendingPathComponent("signature.der"), publicKey: run.key.publicKey
                ))
            }
        }
    }
}
