import ExposureRules
import Foundation

/// The rules of the ProteGO download output: which keys a run publishes, under which name, and for how long.
///
/// Unlike the CWA tree, which is cut into hours, the apps read a flat list of files named by their publication time;
/// each run that finds keys due publishes them in a new file (or several, when there are more than fit in one) and
/// every file stays as it is. A key is due when the CWA expiry policy lets it out (two hours after its validity,
/// rounded up to the hour, never before the hour it was submitted in), so a key still in use is never published.
public struct ProteGOExportPlanner: Sendable {
    public var expiry: ExpiryPolicy
    public var batches: ExportBatches
    /// Files older than this many days leave the index and the tree (`EXPORT_RETENTION_DAYS`).
    public var retentionDays: Int64

    public init(expiry: ExpiryPolicy, batches: ExportBatches, retentionDays: Int64) {
        self.expiry = expiry
        self.batches = batches
        self.retentionDays = retentionDays
    }

    /// Those of the not yet published keys that may be published at `now`.
    public func due(_ keys: [ExportableKey], now: Date) -> [ExportableKey] {
        let hour = now.epochSeconds / 3600
        return keys.filter { expiry.earliestHour(of: $0) <= hour }
    }

    /// The first number of a new file's name: the run's time, and later than every earlier file's (two runs in one
    /// second, or a clock set back, still give names the iOS app takes as new).
    public func publicationTime(now: Date, lastPublishedAt: Int64?) -> Int64 {
        max(now.epochSeconds, (lastPublishedAt ?? 0) + 1)
    }

    /// The oldest publication time the index still lists at `now`.
    public func oldestKept(now: Date) -> Int64 {
        now.epochSeconds - retentionDays * 86_400
    }
}
