import Foundation
@testable import Submission
@testable import SubmissionCore

/// A tree whose writes all go to `tree` but the one of `diverted`, which goes to `elsewhere`: with `elsewhere` a
/// bucket that does not exist, one real upload fails in the middle of a run.
struct DivertingTreeStore: ExportTreeStore {
    let tree: ObjectStoreTreeWriter
    let elsewhere: ObjectStoreTreeWriter
    let diverted: String

    var location: String { tree.location }
    func prepareRun() async throws { try await tree.prepareRun() }
    func isPublished(_ path: String) async throws -> Bool { try await tree.isPublished(path) }

    func publish(_ path: String, _ data: Data, immutable: Bool) async throws -> Bool {
        try await (path == diverted ? elsewhere : tree).publish(path, data, immutable: immutable)
    }

    func removeSubtree(_ path: String) async throws { try await tree.removeSubtree(path) }
    func subfolders(_ path: String) async throws -> [String] { try await tree.subfolders(path) }
}
