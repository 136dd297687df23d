import Foundation
import SubmissionCore

/// Writes the export tree to a directory that a static server or CDN origin serves (the default `ExportTreeStore`;
/// `ObjectStoreTreeWriter` is the other).
///
/// A name is both a file and a folder, so a file's content goes to `<path>/index`. Every write goes to a temporary
/// name in the same folder and is renamed into place, so a reader (or a run killed midway) never sees half a
/// file. Key files are immutable: once published, a run never rewrites them.
public struct ExportTreeWriter: Sendable {
    public let root: URL
    /// The modes of the tree's folders and files: readable by everyone, as published data is.
    static let folderMode: Int16 = 0o755
    static let fileMode: Int16 = 0o644

    public init(root: URL) {
        self.root = root
    }

    public func fileURL(_ path: String) -> URL {
        root.appendingPathComponent(path, isDirectory: true).appendingPathComponent("index")
    }

    public func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: fileURL(path).path)
    }

    /// Writes `data` at `path` atomically; with `immutable`, an existing file is left as it is. Returns whether
    /// it wrote.
    @discardableResult
    public func write(_ path: String, _ data: Data, immutable: Bool) throws -> Bool {
        let target = fileURL(path)
        if immutable, FileManager.default.fileExists(atPath: target.path) { return false }
        let folder = target.deletingLastPathComponent()
        // The tree is public (a CDN, or a web server running as another user, serves it), whatever the umask of the
        // process: folders 0755, files 0644.
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: Self.folderMode])
        let temporary = folder.appendingPathComponent(".index.\(UUID().uuidString).tmp")
        try data.write(to: temporary)
        try FileManager.default.setAttributes([.posixPermissions: Self.fileMode], ofItemAtPath: temporary.path)
        if rename(temporary.path, target.path) != 0 {
            let code = errno
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target.path, "errno": code])
        }
        return true
    }

    public func read(_ path: String) throws -> Data {
        try Data(contentsOf: fileURL(path))
    }

    /// Removes a whole subtree (old dates and hours).
    public func remove(_ path: String) throws {
        let url = root.appendingPathComponent(path, isDirectory: true)
        if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
    }

    /// Names of the subfolders of `path`.
    public func children(_ path: String) -> [String] {
        let url = root.appendingPathComponent(path, isDirectory: true)
        return ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).filter { !$0.hasPrefix(".") && $0 != "index" }
    }

    /// Leftover temporary files of a run that was killed midway.
    public func removeTemporaryFiles() {
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return }
        for case let url as URL in enumerator where url.lastPathComponent.hasPrefix(".index.") && url.pathExtension == "tmp" {
            try? FileManager.default.removeItem(at: url)
        }
    }
}
