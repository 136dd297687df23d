import ExposureCore
import Foundation
import SubmissionCore
import SubmissionDomain

/// Publishes the export tree to an S3-compatible object store, under an optional key prefix.
///
/// On a store a name is both an object and a prefix, so a file's content is the object at its path itself (no
/// `/index` suffix as on a filesystem): `…/date/2020-06-01` is the day's zip and `…/date/2020-06-01/hour` the
/// index of its hours (contract: "Tree"). A PUT replaces an object whole, so no temporary names are needed.
/// Objects carry the Content-Type and Cache-Control a CDN passes on (`ExportFileHeaders`).
public struct ObjectStoreTreeWriter: ExportTreeStore {
    public let client: S3Client
    /// "" or a prefix ending in "/".
    public let prefix: String

    public init(client: S3Client, prefix: String) {
        self.client = client
        self.prefix = prefix.isEmpty || prefix.hasSuffix("/") ? prefix : prefix + "/"
    }

    public var location: String { "\(client.endpoint.absoluteString) bucket \(client.bucket)" + (prefix.isEmpty ? "" : " prefix \(prefix)") }

    func key(_ path: String) -> String { prefix + path }

    /// Nothing to clear: a store never shows a half-written object.
    public func prepareRun() async throws {}

    public func isPublished(_ path: String) async throws -> Bool {
        try await client.head(key(path)) != nil
    }

    /// An immutable file is looked for first (HEAD), not written with `If-None-Match: *`, which not every
    /// S3-compatible store honours.
    @discardableResult
    public func publish(_ path: String, _ data: Data, immutable: Bool) async throws -> Bool {
        if immutable, try await isPublished(path) { return false }
        try await client.put(key(path), Array(data), headers: [
            ("content-type", ExportFileHeaders.contentType(of: data, path: path)),
            ("cache-control", ExportFileHeaders.cacheControl(immutable: immutable)),
        ])
        return true
    }

    public func removeSubtree(_ path: String) async throws {
        // The object itself last: a run stopped midway leaves it, and the next run's listing finds the name again.
        for key in try await client.list(prefix: key(path) + "/").keys {
            try await client.delete(key)
        }
        try await client.delete(key(path))
    }

    public func subfolders(_ path: String) async throws -> [String] {
        let parent = key(path) + "/"
        let listing = try await client.list(prefix: parent, delimiter: "/")
        // A child is an object directly under the parent, a prefix with objects under it, or both.
        let names = listing.keys.map { String($0.dropFirst(parent.count)) }
            + listing.commonPrefixes.map { String($0.dropFirst(parent.count).dropLast()) }
        return Set(names.filter { !$0.isEmpty }).sorted()
    }
}
