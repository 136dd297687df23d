import Foundation

/// Where the distribution publishes the export tree: a local directory (`ExportTreeWriter`) or an S3-compatible
/// object store (`ObjectStoreTreeWriter`). The `Distributor` orders the writes (key files before the indexes that
/// name them) and stops at the first error, so a store only has to make each write whole: readers see either the
/// old or the new content of a path, never part of it.
public protocol ExportTreeStore: Sendable {
    /// Where the tree is, for logs and the command's summary (never a credential).
    var location: String { get }
    /// Clears what a killed run may have left half-done.
    func prepareRun() async throws
    func isPublished(_ path: String) async throws -> Bool
    /// Writes `data` at `path`; with `immutable`, a file already there is left as it is. Returns whether it wrote.
    @discardableResult
    func publish(_ path: String, _ data: Data, immutable: Bool) async throws -> Bool
    /// Removes `path` and everything under it (old dates and hours).
    func removeSubtree(_ path: String) async throws
    /// The names directly under `path`.
    func subfolders(_ path: String) async throws -> [String]
}
