import Foundation
import NIOPosix
import SubmissionCore

/// The directory writer as a store. Its file calls block, so they run on NIO's thread pool, off Swift
/// concurrency's few threads that `serve` needs for submissions meanwhile.
extension ExportTreeWriter: ExportTreeStore {
    public var location: String { root.path }

    public func prepareRun() async throws {
        try await NIOThreadPool.singleton.runIfActive {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: Self.folderMode])
            removeTemporaryFiles()
        }
    }

    public func isPublished(_ path: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { exists(path) }
    }

    @discardableResult
    public func publish(_ path: String, _ data: Data, immutable: Bool) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { try write(path, data, immutable: immutable) }
    }

    public func removeSubtree(_ path: String) async throws {
        try await NIOThreadPool.singleton.runIfActive { try remove(path) }
    }

    public func subfolders(_ path: String) async throws -> [String] {
        try await NIOThreadPool.singleton.runIfActive { children(path) }
    }
}
