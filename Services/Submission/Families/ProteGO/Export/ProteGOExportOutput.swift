import ExposureCore
import Foundation
import NIOPosix
import SubmissionCore
import SubmissionDomain

/// The ProteGO Safe download format, a second output of the one distribution run: `index.txt` and signed GAEN zips
/// for the region's keys, in the same tree store as the CWA files, signed with the region's own keys
/// (docs/protego.md). The zips are the CWA ones (`ExportArchive`, `ExportBatches`, `ExportSignerSet`); only the choice of
/// keys, the names and the index differ (`ProteGOExportPlanner`, `ProteGOExportLayout`).
public struct ProteGOExportOutput: Sendable {
    let region: String
    let store: ProteGOExportStore
    let signers: ExportSignerSet
    let layout: ProteGOExportLayout
    let planner: ProteGOExportPlanner
    let lookbackDays: Int

    public init(
        region: String, store: ProteGOExportStore, signers: ExportSignerSet, layout: ProteGOExportLayout, planner: ProteGOExportPlanner,
        lookbackDays: Int
    ) {
        self.region = region
        self.store = store
        self.signers = signers
        self.layout = layout
        self.planner = planner
        self.lookbackDays = lookbackDays
    }

    /// What one run wrote.
    public struct Report: Sendable, Equatable {
        public var filesWritten = 0
        public var keysPublished = 0
    }

    /// Publishes the keys due at `now` in a new file, writes any listed file that is missing, then the index, and
    /// removes what retention drops. Key files before the index that names them, so the index never names a file that
    /// is not out; the first failure ends the run (the `Distributor`'s rule).
    public func run(now: Date, tree: any ExportTreeStore) async throws -> Report {
        var report = Report()
        var exports = try await store.exports()
        let firstHour = now.epochSeconds / 3600 - Int64(lookbackDays) * 24
        let due = planner.due(try await store.unpublishedKeys(firstHour: firstHour), now: now)
        if !due.isEmpty {
            let export = ProteGOExportStore.Export(
                publishedAt: planner.publicationTime(now: now, lastPublishedAt: exports.last?.publishedAt),
                files: planner.batches.batches(of: due).count
            )
            try await store.record(due, export: export)
            exports.append(export)
            report.keysPublished = due.count
        }
        let oldest = planner.oldestKept(now: now)
        let kept = exports.filter { $0.publishedAt >= oldest }
        for export in kept {
            report.filesWritten += try await writeMissingFiles(of: export, tree: tree)
        }
        let names = kept.flatMap { export in (1...export.files).map { ProteGOExportLayout.fileName(publishedAt: export.publishedAt, number: $0) } }
        try await tree.publish(layout.index, Data(ProteGOExportLayout.indexText(names).utf8), immutable: false)
        for export in exports where export.publishedAt < oldest {
            for number in 1...export.files {
                try await tree.removeSubtree(layout.path(ofFile: ProteGOExportLayout.fileName(publishedAt: export.publishedAt, number: number)))
            }
        }
        try await store.forget(before: oldest)
        return report
    }

    /// Writes those of a run's files that are not out (all of them for a new run; one lost from the tree otherwise),
    /// from the keys recorded for it. Returns how many it wrote.
    private func writeMissingFiles(of export: ProteGOExportStore.Export, tree: any ExportTreeStore) async throws -> Int {
        let paths = (1...export.files).map { layout.path(ofFile: ProteGOExportLayout.fileName(publishedAt: export.publishedAt, number: $0)) }
        var missing: [Int] = []
        for (offset, path) in paths.enumerated() where try await !tree.isPublished(path) {
            missing.append(offset)
        }
        guard !missing.isEmpty else { return 0 }
        let keys = try await store.keys(publishedAt: export.publishedAt)
        let batches = planner.batches.batches(of: keys)
        // The file's window: from the start of its oldest key to its publication.
        let start = UInt64(max(0, Int64(keys.map(\.rollingStartIntervalNumber).min() ?? 0) * 600))
        var written = 0
        for offset in missing where offset < batches.count {
            let info = ExportArchive.Batch(
                startTimestamp: start, endTimestamp: UInt64(export.publishedAt), region: region,
                batchNumber: Int32(offset + 1), batchSize: Int32(batches.count)
            )
            let batch = batches[offset]
            let zip = try await NIOThreadPool.singleton.runIfActive { [signers] in try ExportArchive.make(keys: batch, batch: info, signers: signers) }
            if try await tree.publish(paths[offset], zip, immutable: true) { written += 1 }
        }
        return written
    }
}
