import Crypto
import ExposureCore
import ExposureTestSupport
import Foundation
@testable import SubmissionDomain
import Testing
import ZIPFoundation
@testable import Submission
@testable import SubmissionCore

/// Distribution runs that publish to a real S3 API (moto), through the `EXPORT_S3_*` settings.
@Suite(.enabled(if: MotoServer.testsRun)) struct ObjectStoreDistributionTests {
    static let bucket = "exports"
    /// One signing key for every run of a test.
    let signer = ExportSigner(privateKey: P256.Signing.PrivateKey(), signatureInfo: ExportSigner.signatureInfo(appBundleID: "app", keyVersion: "v1", keyID: "262"))

    func configuration(_ variables: [String: String]) throws -> DistributionConfiguration {
        var all = ["SHIFTING_THRESHOLD": "1", "EXPORT_DIR": FileManager.default.temporaryDirectory.appendingPathComponent("lock-\(UUID().uuidString)").path]
        all.merge(variables) { $1 }
        return try DistributionConfiguration(TestServices.settings(all), country: "DE")
    }

    func distributor(_ h: SubmissionHarness, _ configuration: DistributionConfiguration, tree: (any ExportTreeStore)? = nil) -> Distributor {
        Distributor(configuration: configuration, database: h.database, signers: ExportSignerSet(signer), tree: tree, logger: TestLogger.quiet)
    }

    /// Every object under the tree's prefix: path in the tree → content.
    /// Runs `body` with a harness whose distribution publishes to a fresh bucket on `moto`.
    func withPublishingToStore(
        _ kind: TestDatabase, _ body: (SubmissionHarness, DistributionConfiguration, ObjectStoreTreeWriter, MotoServer) async throws -> Void
    ) async throws {
        try await MotoServer.run { moto in
            try await moto.client(bucket: Self.bucket).createBucket()
            try await SubmissionHarness.run(kind) { h in
                let onStore = try configuration(moto.settings(bucket: Self.bucket))
                try await body(h, onStore, try #require(onStore.tree as? ObjectStoreTreeWriter), moto)
            }
        }
    }

    func objects(_ tree: ObjectStoreTreeWriter) async throws -> [String: [UInt8]] {
        var objects: [String: [UInt8]] = [:]
        for key in try await tree.client.list(prefix: tree.prefix).keys {
            objects[String(key.dropFirst(tree.prefix.count))] = try #require(try await tree.client.get(key)).body
        }
        return objects
    }

    /// Every file of a directory tree: path in the tree (the folder of an `index`) → content.
    func files(_ root: URL) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        let rootPath = root.standardizedFileURL.path + "/"
        for case let url as URL in FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)! where url.lastPathComponent == "index" {
            let folder = url.deletingLastPathComponent().standardizedFileURL.path
            files[String(folder.dropFirst(rootPath.count))] = Array(try Data(contentsOf: url))
        }
        return files
    }

    /// What two runs must agree on: JSON byte for byte; of a zip, the signed `export.bin` (signatures and zip times
    /// differ from run to run).
    func signedContent(_ bytes: [UInt8]) throws -> [UInt8] {
        guard bytes.starts(with: [0x50, 0x4B]) else { return bytes }
        let archive = try Archive(data: Data(bytes), accessMode: .read)
        var content: [UInt8] = []
        _ = try archive.extract(try #require(archive["export.bin"])) { content += $0 }
        return content
    }

    func hourPath(_ layout: ExportTreeLayout, _ time: Date) -> (date: String, hour: Int, path: String) {
        let date = ExportTreeLayout.date(day: time.epochSeconds / 86400)
        let hour = Int(time.epochSeconds / 3600 % 24)
        return (date, hour, layout.hour(date, hour))
    }

    /// The store on its own, as `treeWriterIsAtomicAndKeepsPublishedFiles` tests the directory: an immutable object
    /// is kept even when a caller asks to write it again; a name is a file and a folder at once.
    @Test func theStoreKeepsImmutableObjectsAndTreatsNamesAsFilesAndFolders() async throws {
        try await MotoServer.run { moto in
            let client = moto.client(bucket: Self.bucket)
            try await client.createBucket()
            let tree = ObjectStoreTreeWriter(client: client, prefix: "p")
            #expect(try await tree.publish("a/b", Data("one".utf8), immutable: true))
            #expect(try await !tree.publish("a/b", Data("two".utf8), immutable: true))
            #expect(try await client.get("p/a/b")?.body == Array("one".utf8))
            #expect(try await tree.publish("a", Data("[1]".utf8), immutable: false))
            #expect(try await tree.publish("a", Data("[2]".utf8), immutable: false))
            #expect(try await client.get("p/a")?.body == Array("[2]".utf8))
            try await tree.publish("a/c/d", Data("[]".utf8), immutable: false)
            #expect(try await tree.subfolders("a") == ["b", "c"])
            #expect(try await tree.isPublished("a/c/d"))
            #expect(try await !tree.isPublished("a/c"))

            // Listings come in pages: every page is read.
            #expect(try await client.list(prefix: "p/", pageSize: 2).keys == ["p/a", "p/a/b", "p/a/c/d"])
            try await tree.publish("z", Data("[]".utf8), immutable: false)
            try await tree.removeSubtree("a")
            #expect(try await client.list(prefix: "", pageSize: 1).keys == ["p/z"])
        }
    }

    @Test(arguments: TestDatabase.all)
    func publishesTheSameTreeAsToADirectoryWithHeadersForACDN(kind: TestDatabase) async throws {
        try await MotoServer.run { moto in
            try await moto.client(bucket: Self.bucket).createBucket()
            try await SubmissionHarness.run(kind) { h in
                // Five keys in batches of two: a split bundle (`parts`, `part/N`) is published too.
                try await DistributorTests().upload(h, count: 5, firstByte: 10)
                let hour = hourPath(ExportTreeLayout(country: "DE"), h.clock.now()).path
                h.clock.advance(by: 7200)
                let onStore = try configuration(moto.settings(bucket: Self.bucket, prefix: "/cdn/").merging(["MAX_KEYS_PER_FILE": "2"]) { $1 })
                let tree = try #require(onStore.tree as? ObjectStoreTreeWriter)
                #expect(tree.prefix == "cdn/")
                let stored = try await distributor(h, onStore).run(now: h.clock.now())
                #expect(stored.keysPublished == 5)

                let root = FileManager.default.temporaryDirectory.appendingPathComponent("exports-\(UUID().uuidString)")
                defer { try? FileManager.default.removeItem(at: root) }
                _ = try await distributor(h, try configuration(["EXPORT_DIR": root.path, "MAX_KEYS_PER_FILE": "2"])).run(now: h.clock.now())

                let published = try await objects(tree)
                let written = try files(root)
                #expect(published.keys.sorted() == written.keys.sorted())
                #expect(published.keys.contains(onStore.layout.parts(hour)) && published.keys.contains(onStore.layout.part(hour, 3)))
                for (path, bytes) in written {
                    #expect(try signedContent(try #require(published[path])) == signedContent(bytes), "\(path)")
                }
                // Nothing outside the prefix.
                #expect(try await tree.client.list(prefix: "").keys.allSatisfy { $0.hasPrefix("cdn/") })

                let keyFile = try #require(try await tree.client.head(tree.key(hour)))
                #expect(keyFile["content-type"] == "application/zip")
                #expect(keyFile["cache-control"] == "public, max-age=1209600, immutable")
                let index = try #require(try await tree.client.head(tree.key(onStore.layout.dateIndex)))
                #expect(index["content-type"] == "application/json")
                #expect(index["cache-control"] == "public, max-age=300")
                let appConfig = try #require(try await tree.client.head(tree.key(onStore.layout.appConfig)))
                #expect(appConfig["content-type"] == "application/zip")
                #expect(appConfig["cache-control"] == "public, max-age=300")
            }
        }
    }

    @Test(arguments: TestDatabase.all)
    func publishedObjectsAreNeverRewrittenAndRetentionRemovesOldOnes(kind: TestDatabase) async throws {
        try await withPublishingToStore(kind) { h, onStore, tree, moto in
            let layout = onStore.layout
            try await DistributorTests().upload(h, count: 3, firstByte: 1)
            let (date, _, path) = hourPath(layout, h.clock.now())
            h.clock.advance(by: 3600)
            _ = try await distributor(h, onStore).run(now: h.clock.now())
            let first = try #require(try await tree.client.get(path)).body

            // A later hour: the published hour stays byte for byte (a rewrite would carry a new signature).
            try await DistributorTests().upload(h, count: 2, firstByte: 50)
            h.clock.advance(by: 3600)
            let second = try await distributor(h, onStore).run(now: h.clock.now())
            #expect(second.filesAlreadyPublished > 0)
            #expect(try await tree.client.get(path)?.body == first)

            // Three days later the day's hours are gone (their index too), its daily file stays.
            h.clock.advance(by: 3 * 86400)
            #expect(try await distributor(h, onStore).run(now: h.clock.now()).foldersRemoved > 0)
            #expect(try await tree.client.head(path) == nil)
            #expect(try await tree.client.list(prefix: layout.hourIndex(date)).keys.isEmpty)
            #expect(try await tree.client.head(layout.day(date)) != nil)

            // After the daily window the whole date goes, and the date index no longer lists it.
            h.clock.advance(by: 15 * 86400)
            _ = try await distributor(h, onStore).run(now: h.clock.now())
            #expect(try await tree.client.list(prefix: layout.day(date)).keys.isEmpty)
            #expect(try await !tree.subfolders(layout.dateIndex).contains(date))
            let dates = try JSONDecoder().decode([String].self, from: Data(try #require(try await tree.client.get(layout.dateIndex)).body))
            #expect(!dates.contains(date) && dates.count == 14)
            // What the store holds: the listed dates, and today's and yesterday's hours.
            let folders = try await tree.subfolders(layout.dateIndex)
            #expect(Set(folders).isSuperset(of: dates) && folders.count <= dates.count + 2)
        }
    }

    /// An upload refused in the middle of a run (a bucket that does not exist) fails the run with the store's
    /// error; everything published before stays byte for byte and no index names the missing file. The next run
    /// that can upload publishes it.
    @Test(arguments: TestDatabase.all)
    func aFailedUploadLeavesThePublishedTreeAsItWas(kind: TestDatabase) async throws {
        try await withPublishingToStore(kind) { h, onStore, tree, moto in
            let layout = onStore.layout
            try await DistributorTests().upload(h, count: 3, firstByte: 1)
            h.clock.advance(by: 7200)
            _ = try await distributor(h, onStore).run(now: h.clock.now())
            let before = try await objects(tree)

            try await DistributorTests().upload(h, count: 2, firstByte: 50)
            let (date, hour, path) = hourPath(layout, h.clock.now())
            h.clock.advance(by: 7200)
            let failing = DivertingTreeStore(tree: tree, elsewhere: ObjectStoreTreeWriter(client: moto.client(bucket: "no-such-bucket"), prefix: ""), diverted: path)
            let refused = await #expect(throws: S3Error.self) {
                try await distributor(h, onStore, tree: failing).run(now: h.clock.now())
            }
            #expect(refused?.operation == "PutObject" && refused?.code == "NoSuchBucket" && refused?.key == path)
            #expect(refused.map { "\($0)" }?.contains("no-such-bucket/\(path) failed (HTTP 404, NoSuchBucket") == true)
            let after = try await objects(tree)
            for (name, bytes) in before {
                #expect(after[name] == bytes, "\(name) changed")
            }
            #expect(after[path] == nil)
            let hours = try JSONDecoder().decode([Int].self, from: Data(try #require(after[layout.hourIndex(date)])))
            #expect(!hours.contains(hour))

            _ = try await distributor(h, onStore).run(now: h.clock.now())
            let repaired = try JSONDecoder().decode([Int].self, from: Data(try #require(try await tree.client.get(layout.hourIndex(date))).body))
            #expect(repaired.contains(hour))
            // The hour's keys: one or both of the new ones (the other may expire an hour later).
            let (_, export, _) = try ExportArchive.read(Data(try #require(try await tree.client.get(path)).body))
            let keys = Set(export.keys.map { $0.keyData.first! })
            #expect(!keys.isEmpty && keys.isSubset(of: [50, 51]))
        }
    }
}
