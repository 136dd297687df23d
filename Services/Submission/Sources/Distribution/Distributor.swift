import ExposureCore
import Foundation
import Logging
import Metrics
import NIOPosix

/// What one distribution run did.
public struct DistributionReport: Sendable, Equatable {
    /// Keys read from the database: those waiting for an hour and those of the files written.
    public var keysRead = 0
    public var keysPublished = 0
    public var keysPending = 0
    public var filesWritten = 0
    public var filesAlreadyPublished = 0
    public var foldersRemoved = 0
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
    let signer: ExportSigner
    let writer: ExportTreeWriter
    let logger: Logger

    public init(configuration: DistributionConfiguration, database: Database, signer: ExportSigner, logger: Logger) {
        self.configuration = configuration
        self.database = database
        self.store = DistributionStore(database: database, minimumRiskLevel: configuration.minimumRiskLevel, lookbackDays: configuration.lookbackDays)
        self.signer = signer
        self.writer = ExportTreeWriter(root: configuration.exportDirectory)
        self.logger = logger
    }

    /// Runs once if no other replica is running it; nil when another one is.
    public func runExclusively(now: Date) async throws -> DistributionReport? {
        try await ExclusiveJob.run(Self.jobName, on: database, lockFile: lockFile) {
            try await run(now: now)
        }
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
        let published = try await NIOThreadPool.singleton.runIfActive {
            planner.publishedFiles(now: now, plannedThroughHour: plannedThroughHour, exists: writer.exists)
        }
        let state = try await store.state(now: now, placedHours: planner.hoursToRead(now: now, publishedFiles: published))
        let plan = try await NIOThreadPool.singleton.runIfActive { planner.plan(state, now: now, publishedFiles: published) }
        try await store.record(plan.placements, plannedThroughHour: plan.plannedThroughHour)
        let report = try await NIOThreadPool.singleton.runIfActive { try publish(plan, keysRead: state.keyCount) }
        logger.info("distribution run finished", metadata: [
            "read": "\(report.keysRead)", "pending": "\(report.keysPending)", "written": "\(report.filesWritten)",
            "kept": "\(report.filesAlreadyPublished)", "removed": "\(report.foldersRemoved)",
            "duration": "\(ContinuousClock.now - start)",
        ])
        return report
    }

    /// Everything after the plan is recorded: write the files, apply retention.
    private func publish(_ plan: DistributionPlan, keysRead: Int) throws -> DistributionReport {
        try FileManager.default.createDirectory(at: configuration.exportDirectory, withIntermediateDirectories: true)
        writer.removeTemporaryFiles()
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
                let zip = try ExportArchive.make(
                    keys: batch,
                    batch: .init(startTimestamp: bundle.start, endTimestamp: bundle.end, region: configuration.country,
                                 batchNumber: Int32(number), batchSize: Int32(batches.count)),
                    signer: signer
                )
                if number == 1, batches.count > 1 {
                    try writer.write(layout.parts(bundle.path), Data(DistributionPlanner.json(Array(1...batches.count))), immutable: immutable)
                }
                if try writer.write(path, zip, immutable: immutable) { report.filesWritten += 1 }
            }
            if bundle.path.contains("/hour/") { report.keysPublished += bundle.keys.count }
        }
        for (path, json) in plan.indexes {
            try writer.write(path, Data(json), immutable: false)
        }
        let appConfiguration = try AppConfigurationFile.parse(json: configuration.appConfigurationJSON)
        try writer.write(layout.appConfig, try AppConfigurationFile.make(appConfiguration, signer: signer), immutable: false)
        report.foldersRemoved = try applyRetention(plan)

        Counter(label: "distribution_runs_total").increment()
        Gauge(label: "distribution_keys_pending").record(plan.pendingKeys)
        Counter(label: "distribution_files_written_total").increment(by: report.filesWritten)
        return report
    }

    /// Dates older than the daily window go entirely; hours are kept for today and yesterday only.
    private func applyRetention(_ plan: DistributionPlan) throws -> Int {
        let layout = configuration.layout
        let keepDays = Set(plan.publishedDates + plan.hourlyDates)
        let keepHours = Set(plan.hourlyDates)
        var removed = 0
        for date in writer.children(layout.dateIndex) {
            if !keepDays.contains(date) {
                try writer.remove(layout.day(date))
                removed += 1
            } else if !keepHours.contains(date), !writer.children(layout.hourIndex(date)).isEmpty || writer.exists(layout.hourIndex(date)) {
                try writer.remove(layout.hourIndex(date))
                removed += 1
            }
        }
        return removed
    }
}
