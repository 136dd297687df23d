import ExposureCore
import Foundation

extension MotoServer {
    /// Copies every object of `bucket` into `root` as the directory writer lays a tree out: a name is also a folder,
    /// so an object's content goes to `<key>/index`. Returns the keys copied, for the checkers of a directory tree
    /// (`ExportTreeCheck`, `check_tree.py`).
    @discardableResult
    public func copyTree(bucket: String, to root: URL) async throws -> [String] {
        let client = client(bucket: bucket)
        let keys = try await client.list(prefix: "").keys
        for key in keys {
            guard let object = try await client.get(key) else {
                throw ExternalTool.Failed(description: "\(key) was listed in bucket \(bucket) but is gone")
            }
            let folder = root.appendingPathComponent(key, isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(object.body).write(to: folder.appendingPathComponent("index"))
        }
        return keys
    }
}
