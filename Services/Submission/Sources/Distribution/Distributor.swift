import ExposureCore
import Foundation
import Logging
import Metrics
import NIOPosix
import SubmissionCore
import SubmissionDomain
import SubmissionProteGO

/// What one distribution run did.
public struct DistributionReport: Sendable, Equatable {
    /// Keys read from the database: those waiting for an hour and those of the files written.
    public var keysRead = 0
    public var keysPublished = 0
    public var keysPending = 0
    public var filesWritten = 0
    public var filesAlreadyPublished = 0
    public var foldersRemoved = 0
    /// The ProteGO output's new zips and the keys it published (docs/protego.md).
    public var protegoFilesWritten = 0
    public var protegoKeysPublished = 0
}

/// One distribution run: read the keys still waiting and those of the files to write, plan the hours not yet
/// planned, record which keys went into which hour, write new key files (never rewriting published ones), then the
/// indexes that point to them, the signed app configuration, and finally remove what retention drops.
///
/// The placements are recorded before any file is written, and key files before the indexes that name them, each
/// atomically, so the tree a CDN sees is always consistent: a run killed midway leaves files that no index names
/// yet, and the next run writes the missing ones from the same record.
public struct Distributor: Sendable {
    let configuration: DistributionConfiguration
    let store: DistributionStore
    let database: Database
    let signers: ExportSignerSet
    let tree: any ExportTreeStore
    let logger: Logger
    /// The ProteGO download format, written after the CWA tree by the same run (nil: not written).
    var protego: ProteGOExportOutput?

    /// - Parameter tree: where to publish; by default where the configuration says (`EXPORT_DIR` or `EXPORT_S3_*`).
    public init(configuration: DistributionConfiguration, database: Database, signers: ExportSignerSet, tree: (any ExportTreeStore)? = nil, logger: Logger) {
        self.configuration = configuration
        self.database = database
        self.store = DistributionStore(database: database, minimumRiskLevel: configuration.minimumRiskLevel, lookbackDays: configuration.lookbackDays)
        self.signers = signers
        self.tree = tree ?? configuration.tree
        self.logger = logger
    }

    /// Runs once if no other replica is running it; nil when another one is.
    public func runExclusively(now: Date) async throws -> DistributionReport? {
        try await ExclusiveJob.run(Self.jobName, on: database, lockFile: lockFile) {
            try await run(now: now)
        }
    }

    /// A scheduled round, as every replica's periodic job asks for one: runs if no other replica is running the job
    /// and none has finished this round yet (the number of `interval`s since the epoch), so that however many replicas
    /// schedule it, the tree is written once per interval. nil when skipped. A round that fails is not recorded, so
    /// the next replica to ask in the same interval runs it.
    public func runScheduled(now: Date, interval: Duration) async throws -> DistributionReport? {
        let round = Int64((now.timeIntervalSince1970 / max(interval.seconds, 1)).rounded(.down))
        let report = try await ExclusiveJob.run(Self.jobName, on: database, lockFile: lockFile) { () -> DistributionReport? in
            if let last = try await store.lastRound(), last >= round { return nil }
            let report = try await run(now: now)
            try await store.recordRound(round)
            // Operators (and the replica tests) see which interval each run served.
            logger.info("distribution round finished", metadata: ["round": "\(round)"])
            return report
        }
        return report ?? nil
    }

    /// What keeps two runs apart: the job's name (PostgreSQL) and a file beside the exports (SQLite).
    static let jobName = "distribution"
    var lockFile: URL { configuration.exportDirectory.appendingPathComponent(".distribution.lock") }

    public func run(now: Date) async throws -> DistributionReport {
        let start = ContinuousClock.now
        // Planning, signing, zipping and writing files take seconds at national scale and block their thread: they
        // run on NIO's thread pool rather than on one of Swift concurrency's few threads, which `serve` needs for
        // submissions meanwhile.
        let planner = configuration.planner
        // Files published already stay as they are, so their keys are not read: an hourly run reads the keys still
        // waiting and those of the files it writes, not the whole window (a million keys at national scale).
        let plannedThroughHour = try await store.plannedThroughHour()
        let published = try await publishedFiles(planner.keptFileCandidates(now: now, plannedThroughHour: plannedThroughHour))
        let state = try await store.state(now: now, placedHours: planner.hoursToRead(now: now, publishedFiles: published))
        let plan = try await NIOThreadPool.singleton.runIfActive { planner.plan(state, now: now, publishedFiles: published) }
        try await store.record(plan.placements, plannedThroughHour: plan.plannedThroughHour)
        var report = try await publish(plan, keysRead: state.keyCount)
        if let protego {
            let written = try await protego.run(now: now, tree: tree)
            report.protegoFilesWritten = written.filesWritten
            report.protegoKeysPublished = written.keysPublished
        }
        logger.info("distribution run finished", metadata: [
            "tree": "\(tree.location)",
            "read": "\(report.keysRead)", "pending": "\(report.keysPending)", "written": "\(report.filesWritten)",
            "kept": "\(report.filesAlreadyPublished)", "removed": "\(report.foldersRemoved)",
            "protegoWritten": "\(report.protegoFilesWritten)",
            "duration": "\(ContinuousClock.now - start)",
        ])
        return report
    }

    /// Those of `candidates` that are out, asked of the tree one by one (a HEAD each on an object store; some 60).
    private func publishedFiles(_ candidates: [String]) async throws -> Set<String> {
        var published = Set<String>()
        for path in candidates where try await tree.isPublished(path) {
            published.insert(path)
        }
        return published
    }

    /// Everything after the plan is recorded: write the files, apply retention.
    ///
    /// The first write that fails ends the run with its error, before any index that would name what it did not
    /// write: the published tree stays as the last complete run left it, and the next run writes what is missing.
    private func publish(_ plan: DistributionPlan, keysRead: Int) async throws -> DistributionReport {
        try await tree.prepareRun()
        var report = DistributionReport(keysRead: keysRead, keysPending: plan.pendingKeys, filesAlreadyPublished: plan.keptFiles)
        let batcher = ExportBatches(maxKeysPerFile: configuration.maxKeysPerFile)
        let layout = configuration.layout

        // The plan holds only files that were not out when the run listed the tree (`publishedFiles`); the writer
        // still never replaces an immutable one.
        for bundle in plan.bundles {
            let immutable = bundle.isComplete && !bundle.replacesExistingFile
            let batches = batcher.batches(of: bundle.keys)
            // Later batches first: the bundle's own path, which marks it as published, is written last.
            for (offset, batch) in batches.enumerated().reversed() {
                let number = offset + 1
                let path = number == 1 ? bundle.path : layout.part(bundle.path, number)
                let info = ExportArchive.Batch(startTimestamp: bundle.start, endTimestamp: bundle.end, region: configuration.country,
                                               batchNumber: Int32(number), batchSize: Int32(batches.count))
                let zip = try await NIOThreadPool.singleton.runIfActive { [signers] in try ExportArchive.make(keys: batch, batch: info, signers: signers) }
                if number == 1, batches.count > 1 {
                    try await tree.publish(layout.parts(bundle.path), Data(DistributionPlanner.json(Array(1...batches.count))), immutable: immutable)
                }
                if try await tree.publish(path, zip, immutable: immutable) { report.filesWritten += 1 }
            }
            if bundle.path.contains("/hour/") { report.keysPublished += bundle.keys.count }
        }
        for (path, json) in plan.indexes {
            try await tree.publish(path, Data(json), immutable: false)
        }
        let appConfiguration = try AppConfigurationFile.parse(json: configuration.appConfigurationJSON)
        try await tree.publish(layout.appConfig, try AppConfigurationFile.make(appConfiguration, signers: signers), immutable: false)
        report.foldersRemoved = try await applyRetention(plan)

        Counter(label: "distribution_runs_total").increment()
        Gauge(label: "distribution_keys_pending").record(plan.pendingKeys)
        Counter(label: "distribution_files_written_total").increment(by: report.filesWritten)
        // Keys in new hourly files: with uploads arriving, a flat line here says publication stopped (an alert).
        Counter(label: "distribution_keys_published_total").increment(by: report.keysPublished)
        return report
    }

    /// Dates older than the daily window go entirely; hours are kept for today and yesterday only.
    private func applyRetention(_ plan: DistributionPlan) async throws -> Int {
        let layout = configuration.layout
        let keepDays = Set(plan.publishedDates + plan.hourlyDates)
        let keepHours = Set(plan.hourlyDates)
        var removed = 0
        for date in try await tree.subfolders(layout.dateIndex) {
            if !keepDays.contains(date) {
                try await tree.removeSubtree(layout.day(date))
                removed += 1
            } else if !keepHours.contains(date), try await hasHours(date) {
                try await tree.removeSubtree(layout.hourIndex(date))
                removed += 1
            }
        }
        return removed
    }

    /// Whether a date still has hourly files or their index.
    private func hasHours(_ date: String) async throws -> Bool {
        let hourIndex = configuration.layout.hourIndex(date)
        if try await !tree.subfolders(hourIndex).isEmpty { return true }
        return try await tree.isPublished(hourIndex)
    }
}
