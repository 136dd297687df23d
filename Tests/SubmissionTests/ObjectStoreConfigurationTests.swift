import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Submission
@testable import SubmissionCore

/// The `EXPORT_S3_*` settings: read like every other, secrets also from files, and refused at start-up when
/// incomplete or contradictory.
@Suite struct ObjectStoreConfigurationTests {
    let complete = [
        "EXPORT_S3_ENDPOINT": "http://minio:9000", "EXPORT_S3_BUCKET": "cwa-exports", "EXPORT_S3_PATH_STYLE": "true",
        "EXPORT_S3_ACCESS_KEY_ID": "id", "EXPORT_S3_SECRET_ACCESS_KEY": "secret-value",
    ]

    func configuration(_ variables: [String: String]) throws(ConfigurationError) -> DistributionConfiguration {
        try DistributionConfiguration(TestServices.settings(variables), country: "DE")
    }

    @Test func theLocalDirectoryIsTheDefault() throws {
        let configuration = try configuration(["EXPORT_DIR": "/srv/exports"])
        #expect(configuration.objectStore == nil)
        #expect((configuration.tree as? ExportTreeWriter)?.root.path == "/srv/exports")
    }

    @Test func aCompleteStoreWithDefaultsAndSecretsFromFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("s3-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try SecretFile.write("file-id\n", to: folder.appendingPathComponent("id"))
        try SecretFile.write("file-secret\n", to: folder.appendingPathComponent("secret"))
        var variables = complete
        variables["EXPORT_S3_ACCESS_KEY_ID"] = nil
        variables["EXPORT_S3_SECRET_ACCESS_KEY"] = nil
        variables["EXPORT_S3_ACCESS_KEY_ID_FILE"] = folder.appendingPathComponent("id").path
        variables["EXPORT_S3_SECRET_ACCESS_KEY_FILE"] = folder.appendingPathComponent("secret").path
        variables["EXPORT_S3_PREFIX"] = "cdn"
        let store = try #require(try configuration(variables).objectStore)
        #expect(store.endpoint.absoluteString == "http://minio:9000")
        #expect(store.region == "us-east-1" && store.bucket == "cwa-exports" && store.pathStyle)
        #expect(store.prefix == "cdn/" && store.accessKeyID == "file-id")
        #expect(!"\(store)".contains("file-secret") && !String(reflecting: store).contains("file-secret"))
        #expect(!String(reflecting: store.tree).contains("file-secret"))
        #expect(try configuration(complete).objectStore?.prefix == "")
        #expect(try !configuration(complete.merging(["EXPORT_S3_PATH_STYLE": "false"]) { $1 }).objectStore!.pathStyle)
    }

    @Test(arguments: [
        (["EXPORT_S3_BUCKET": ""], "EXPORT_S3_BUCKET"),
        (["EXPORT_S3_BUCKET": "Not_A_Bucket"], "EXPORT_S3_BUCKET"),
        (["EXPORT_S3_SECRET_ACCESS_KEY": ""], "EXPORT_S3_SECRET_ACCESS_KEY"),
        (["EXPORT_S3_ACCESS_KEY_ID": ""], "EXPORT_S3_ACCESS_KEY_ID"),
        (["EXPORT_S3_ENDPOINT": "minio:9000"], "EXPORT_S3_ENDPOINT"),
        (["EXPORT_S3_ENDPOINT": "https://s3.example.com/cwa-exports"], "EXPORT_S3_ENDPOINT"),
        (["EXPORT_S3_PATH_STYLE": "maybe"], "EXPORT_S3_PATH_STYLE"),
        (["EXPORT_S3_SECRET_ACCESS_KEY": "", "EXPORT_S3_SECRET_ACCESS_KEY_FILE": "/nonexistent/secret"], "EXPORT_S3_SECRET_ACCESS_KEY_FILE"),
        (["SERVE_EXPORTS": "true"], "SERVE_EXPORTS"),
    ])
    func badSettingsAreRefusedByName(change: [String: String], variable: String) {
        let error = #expect(throws: ConfigurationError.self) { try configuration(complete.merging(change) { $1 }) }
        #expect(error?.variable == variable)
    }

    @Test func storeSettingsWithoutAnEndpointAreRefused() {
        #expect(throws: ConfigurationError(variable: "EXPORT_S3_BUCKET", reason: "is set, but EXPORT_S3_ENDPOINT is not: set it to publish to an object store")) {
            try configuration(["EXPORT_S3_BUCKET": "cwa-exports"])
        }
    }

    /// `serve` serves the local directory by default (the all-in-one suite); not when the tree goes to a store.
    @Test func serveExportsDefaultsToOffWithAStore() throws {
        #expect(try DistributionConfiguration(TestServices.settings(complete), country: "DE", serveExportsByDefault: true).serveExports == false)
        #expect(try DistributionConfiguration(TestServices.settings([:]), country: "DE", serveExportsByDefault: true).serveExports)
    }

    /// An unreachable store fails a write with an error that says which call on what, not a hang.
    @Test func anUnreachableStoreFailsClearly() async throws {
        let client = S3Client(
            endpoint: URL(string: "http://127.0.0.1:\(ServiceProcess.freePort())")!, region: "us-east-1", bucket: "exports", pathStyle: true,
            accessKeyID: "id", secretAccessKey: "secret", timeout: .seconds(3)
        )
        let error = await #expect(throws: S3Error.self) {
            try await ObjectStoreTreeWriter(client: client, prefix: "").publish("version", Data("[]".utf8), immutable: false)
        }
        #expect(error?.status == nil)
        #expect(error.map { "\($0)" }?.hasPrefix("object store: PutObject exports/version failed (no answer") == true)
    }
}
