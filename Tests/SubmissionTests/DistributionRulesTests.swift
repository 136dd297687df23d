import Crypto
import ExposureCore
import ExposureProtocol
import Foundation
@testable import SubmissionDomain
import Testing
@testable import Submission
@testable import SubmissionCore

/// A key valid for the whole UTC day `day` (days since the epoch), submitted in `submissionHour`.
func dayKey(_ seed: UInt8, day: Int64, trl: Int32 = 5, submissionHour: Int64? = nil) -> ExportableKey {
    ExportableKey(
        keyData: (0..<16).map { seed &+ UInt8($0) },
        rollingStartIntervalNumber: Int32(day * 144), rollingPeriod: 144, transmissionRiskLevel: trl,
        submissionHour: submissionHour ?? (day + 1) * 24
    )
}

@Suite struct DistributionRulesTests {
    @Test func expiryWaitsTwoHoursAfterValidityRoundedUp() {
        let policy = ExpiryPolicy()
        let day: Int64 = 20_000
        // Valid until midnight after `day`; +120 min = 02:00, already a full hour.
        #expect(policy.earliestHour(of: dayKey(1, day: day)) == (day + 1) * 24 + 2)
        // A key valid until 00:10 becomes publishable at 02:10, rounded up to 03:00.
        var short = dayKey(1, day: day)
        short.rollingPeriod = 145
        #expect(policy.earliestHour(of: short) == (day + 1) * 24 + 3)
        // Never before its submission hour.
        #expect(policy.earliestHour(of: dayKey(1, day: day, submissionHour: (day + 3) * 24)) == (day + 3) * 24)
    }

    @Test func shiftingHoldsKeysUntilEnoughAccumulate() {
        let policy = ShiftingPolicy(threshold: 3)
        let keys: [Int64: [ExportableKey]] = [
            10: [dayKey(1, day: 0)],
            11: [dayKey(2, day: 0)],
            13: [dayKey(3, day: 0), dayKey(4, day: 0)],
            14: [dayKey(5, day: 0)],
        ]
        let (published, pending) = policy.distribute(keys, over: 10..<15)
        #expect(published.map(\.hour) == [10, 11, 12, 13, 14])
        #expect(published.map(\.keys.count) == [0, 0, 0, 4, 0])
        #expect(pending.count == 1)
    }

    @Test(arguments: [(Int32(1), TemporaryExposureKey.ReportType.recursive, Int32(1)), (2, .recursive, 2), (3, .selfReport, 1), (4, .selfReport, 2),
                      (5, .confirmedClinicalDiagnosis, 1), (6, .confirmedClinicalDiagnosis, 2), (7, .confirmedTest, 1), (8, .confirmedTest, 2)])
    func riskLevelIsReencoded(level: Int32, reportType: TemporaryExposureKey.ReportType, daysSinceOnset: Int32) {
        let exported = RiskLevelEncoding.exported(dayKey(9, day: 100, trl: level))
        #expect(exported.reportType == reportType)
        #expect(exported.daysSinceOnsetOfSymptoms == daysSinceOnset)
        #expect(exported.transmissionRiskLevel == level)
        #expect(exported.rollingPeriod == 144)
    }

    @Test func keysAreOrderedBytewiseAndSplit() {
        let keys = [dayKey(200, day: 1), dayKey(3, day: 1), dayKey(100, day: 1), dayKey(0, day: 1), dayKey(255, day: 1)]
        let batches = ExportBatches(maxKeysPerFile: 2).batches(of: keys)
        #expect(batches.map(\.count) == [2, 2, 1])
        #expect(batches.flatMap { $0.map { $0.keyData[0] } } == [0, 3, 100, 200, 255])
        #expect(ExportBatches().batches(of: []).map(\.count) == [0])
        // 16-byte order, not just the first byte.
        var a = dayKey(1, day: 1)
        var b = dayKey(1, day: 1)
        a.low = 2
        b.low = 1
        #expect(ExportBatches().batches(of: [a, b])[0].map(\.low) == [1, 2])
        #expect(dayKey(7, day: 1).keyData == (0..<16).map { 7 + UInt8($0) })
    }

    @Test func exportFilesAreSignedZipsInTheContractsFormat() throws {
        let key = P256.Signing.PrivateKey()
        let signer = ExportSigner(privateKey: key, signatureInfo: ExportSigner.signatureInfo(appBundleID: "de.rki.coronawarnapp", keyVersion: "v1", keyID: "262"))
        let keys = [dayKey(5, day: 20_000), dayKey(1, day: 20_000, trl: 8)]
        let zip = try ExportArchive.make(keys: keys, batch: .init(startTimestamp: 1000, endTimestamp: 4600, region: "DE"), signers: ExportSignerSet(signer))
        let (binary, export, signatures) = try ExportArchive.read(zip)
        #expect(Array(binary.prefix(16)) == Array("EK Export v1    ".utf8))
        #expect(export.startTimestamp == 1000 && export.endTimestamp == 4600)
        #expect(export.region == "DE" && export.batchNum == 1 && export.batchSize == 1)
        #expect(export.keys.count == 2)
        #expect(export.signatureInfos.first?.signatureAlgorithm == "1.2.840.10045.4.3.2")
        #expect(export.signatureInfos.first?.verificationKeyID == "262")
        let signature = try #require(signatures.signatures.first)
        let ecdsa = try P256.Signing.ECDSASignature(derRepresentation: signature.signature)
        #expect(key.publicKey.isValidSignature(ecdsa, for: binary))
        var tampered = binary
        tampered[tampered.count - 1] ^= 1
        #expect(!key.publicKey.isValidSignature(ecdsa, for: tampered))
    }

    @Test func planPublishesCompleteHoursAndDaysOnly() {
        let layout = ExportTreeLayout(country: "DE")
        let planner = DistributionPlanner(layout: layout, shifting: ShiftingPolicy(threshold: 1))
        let day: Int64 = 20_400
        let now = Date(timeIntervalSince1970: TimeInterval((day * 24 + 5) * 3600 + 1800))  // 05:30 on `day`
        // Publishable at 02:00 today: in the 02 hour file and not yet in a daily file.
        let keys = [dayKey(1, day: day - 1, submissionHour: (day - 1) * 24 + 20)]
        let plan = planner.plan(PublicationState(unpublished: keys), now: now)
        let today = ExportTreeLayout.date(day: day)
        let yesterday = ExportTreeLayout.date(day: day - 1)
        let hourPaths = plan.bundles.map(\.path).filter { $0.contains("/hour/") }
        #expect(hourPaths.count == 24 + 5)  // yesterday 0..23, today 0..4; 05 is still running
        #expect(plan.bundles.first { $0.path == layout.hour(today, 2) }?.keys.count == 1)
        #expect(plan.publishedDates.count == 14)
        #expect(plan.publishedDates.last == yesterday)
        #expect(!plan.publishedDates.contains(today))
        let hourIndex = plan.indexes.first { $0.path == layout.hourIndex(today) }.map { String(decoding: $0.json, as: UTF8.self) }
        #expect(hourIndex == "[0,1,2,3,4]")
        #expect(plan.pendingKeys == 0)
    }

    @Test func keysNotYetExpiredArePending() {
        let planner = DistributionPlanner(layout: ExportTreeLayout(country: "DE"), shifting: ShiftingPolicy(threshold: 1))
        let day: Int64 = 20_400
        let now = Date(timeIntervalSince1970: TimeInterval((day * 24 + 1) * 3600))  // 01:00: yesterday's keys wait till 02:00
        let plan = planner.plan(PublicationState(unpublished: [dayKey(1, day: day - 1)]), now: now)
        #expect(plan.pendingKeys == 1)
        #expect(plan.bundles.allSatisfy { $0.keys.isEmpty })
    }

    @Test func treeWriterIsAtomicAndKeepsPublishedFiles() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tree-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let writer = ExportTreeWriter(root: root)
        #expect(try writer.write("a/b", Data("one".utf8), immutable: true))
        #expect(try !writer.write("a/b", Data("two".utf8), immutable: true))
        #expect(try writer.read("a/b") == Data("one".utf8))
        #expect(try writer.write("a", Data("index".utf8), immutable: false))
        #expect(try writer.write("a", Data("index 2".utf8), immutable: false))
        #expect(try writer.read("a") == Data("index 2".utf8))
        #expect(writer.children("a") == ["b"])
        try Data("half".utf8).write(to: root.appendingPathComponent("a/.index.x.tmp"))
        writer.removeTemporaryFiles()
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("a/.index.x.tmp").path))
    }

    @Test func defaultAppConfigurationParses() throws {
        let configuration = try AppConfigurationFile.parse(json: AppConfigurationFile.defaultJSON)
        #expect(configuration.minRiskScore == 11)
        #expect(configuration.transmissionRiskValues.count == 8)
        #expect(configuration.riskScoreClasses.map(\.label) == ["LOW", "HIGH"])
    }
}

@Suite struct IncompleteHourTests {
    @Test func theRunningHourIsPublishedOnlyWhenAskedAndStaysRewritable() {
        let layout = ExportTreeLayout(country: "DE")
        var planner = DistributionPlanner(layout: layout, shifting: ShiftingPolicy(threshold: 1))
        let day: Int64 = 20_400
        let now = Date(timeIntervalSince1970: TimeInterval((day * 24 + 5) * 3600 + 60))
        let key = dayKey(1, day: day - 2, submissionHour: day * 24 + 5)  // submitted in the running hour
        let today = ExportTreeLayout.date(day: day)
        #expect(planner.plan(PublicationState(unpublished: [key]), now: now).bundles.first { $0.path == layout.hour(today, 5) } == nil)
        planner.includeIncompleteHours = true
        let bundle = planner.plan(PublicationState(unpublished: [key]), now: now).bundles.first { $0.path == layout.hour(today, 5) }
        #expect(bundle?.keys.count == 1)
        #expect(bundle?.isComplete == false)
        #expect(planner.plan(PublicationState(unpublished: [key]), now: now).bundles.first { $0.path == layout.hour(today, 4) }?.isComplete == true)
    }

    /// The running hour's keys are not placed: the first run after the hour plans it again, complete this time, and
    /// its file replaces the one written while the hour was running.
    @Test func theRunningHourIsPlannedAgainOnceItIsOver() {
        let layout = ExportTreeLayout(country: "DE")
        var planner = DistributionPlanner(layout: layout, shifting: ShiftingPolicy(threshold: 1))
        planner.includeIncompleteHours = true
        let day: Int64 = 20_400
        let today = ExportTreeLayout.date(day: day)
        let early = dayKey(1, day: day - 2, submissionHour: day * 24 + 5)
        let late = dayKey(2, day: day - 2, submissionHour: day * 24 + 5)
        let during = planner.plan(PublicationState(unpublished: [early]), now: Date(timeIntervalSince1970: TimeInterval((day * 24 + 5) * 3600 + 60)))
        #expect(during.placements.isEmpty)
        #expect(during.plannedThroughHour == day * 24 + 4)

        let after = planner.plan(
            PublicationState(unpublished: [early, late], plannedThroughHour: during.plannedThroughHour),
            now: Date(timeIntervalSince1970: TimeInterval((day * 24 + 6) * 3600 + 60))
        )
        let hour5 = after.bundles.first { $0.path == layout.hour(today, 5) }
        #expect(hour5?.keys == [early, late])
        #expect(hour5?.isComplete == true && hour5?.replacesExistingFile == true)
        #expect(after.placements.map(\.hour) == [day * 24 + 5])
        // Hours planned by earlier runs are never replaced.
        #expect(after.bundles.first { $0.path == layout.hour(today, 4) }?.replacesExistingFile == false)
        // With every file on disk, the running hour's of the run before is still rewritten, and its keys read.
        let now = Date(timeIntervalSince1970: TimeInterval((day * 24 + 6) * 3600 + 60))
        let published = planner.publishedFiles(now: now, plannedThroughHour: during.plannedThroughHour) { _ in true }
        #expect(published.contains(layout.hour(today, 4)))
        #expect(!published.contains(layout.hour(today, 5)) && !published.contains(layout.hour(today, 6)))
        #expect(planner.hoursToRead(now: now, publishedFiles: published) == [day * 24 + 5..<day * 24 + 7])
    }
}

/// A run reads the placed keys of the files it writes only, and leaves the published ones out of its plan.
@Suite struct PublishedFilesTests {
    let layout = ExportTreeLayout(country: "DE")
    let day: Int64 = 20_400
    /// 05:30 on `day`.
    var now: Date { Date(timeIntervalSince1970: TimeInterval((day * 24 + 5) * 3600 + 1800)) }

    @Test func everyFileOfTheWindowIsReadBeforeAnyIsPublished() {
        let planner = DistributionPlanner(layout: layout)
        let files = planner.keyFiles(now: now)
        #expect(files.count == 14 + 24 + 5)
        #expect(planner.publishedFiles(now: now, plannedThroughHour: day * 24 + 4) { _ in false }.isEmpty)
        // The 14 days before today, then yesterday's and today's hours up to 04:00, as one range.
        #expect(planner.hoursToRead(now: now, publishedFiles: []) == [(day - 14) * 24..<day * 24 + 5])
    }

    @Test func onlyTheFilesStillToWriteAreRead() {
        let planner = DistributionPlanner(layout: layout)
        let yesterday = ExportTreeLayout.date(day: day - 1), today = ExportTreeLayout.date(day: day)
        // Everything is out but yesterday's daily file, its 13:00 file and today's 04:00 file.
        let missing: Set = [layout.day(yesterday), layout.hour(yesterday, 13), layout.hour(today, 4)]
        let published = planner.publishedFiles(now: now, plannedThroughHour: day * 24 + 4) { !missing.contains($0) }
        #expect(published.count == 14 + 24 + 5 - 3)
        #expect(planner.hoursToRead(now: now, publishedFiles: published) == [(day - 1) * 24..<day * 24, day * 24 + 4..<day * 24 + 5])

        // The plan holds the three missing files, each with the keys placed in its hours, and counts the rest.
        let placed = [
            (day - 1) * 24 + 13: [dayKey(1, day: day - 3), dayKey(2, day: day - 3)],
            (day - 1) * 24 + 20: [dayKey(3, day: day - 3)],
            day * 24 + 4: [dayKey(4, day: day - 3)],
        ]
        let plan = planner.plan(PublicationState(published: placed, plannedThroughHour: day * 24 + 4), now: now, publishedFiles: published)
        #expect(plan.keptFiles == published.count)
        let keys = Dictionary(uniqueKeysWithValues: plan.bundles.map { ($0.path, $0.keys.map { $0.keyData.first! }.sorted()) })
        #expect(keys == [layout.day(yesterday): [1, 2, 3], layout.hour(yesterday, 13): [1, 2], layout.hour(today, 4): [4]])
    }

    @Test func beforeTheFirstRunTheFilesFoundAreKept() {
        let planner = DistributionPlanner(layout: layout)
        let published = planner.publishedFiles(now: now, plannedThroughHour: nil) { _ in true }
        #expect(published.count == 14 + 24 + 5)
        #expect(planner.hoursToRead(now: now, publishedFiles: published).isEmpty)
    }
}
