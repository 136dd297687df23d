import ExposureTestSupport
import Foundation
import Testing

@testable import Submission
@testable import SubmissionCore

/// The export tree served over GET (`SERVE_EXPORTS`), as the CDN origin serves it: each file with its type and how
/// long a CDN may keep it, and nothing outside the tree.
@Suite struct ExportFileRoutesTests {
    static let keyFile = "version/v1/diagnosis-keys/country/DE/date/2026-11-20"
    static let dates = "version/v1/diagnosis-keys/country/DE/date"
    static let appConfig = "version/v1/configuration/country/DE/app_config"

    @Test func filesAreServedWithTheirTypeAndLifetime() async throws {
        try await withServedTree { client, _ in
            let key = try await client.get("/" + Self.keyFile)
            #expect(key.status == 200)
            #expect(key.body == Array("PK key file".utf8))
            #expect(key.header("Content-Type") == "application/zip")
            #expect(key.header("Cache-Control") == "public, max-age=86400")

            let index = try await client.get("/" + Self.dates)
            #expect(index.status == 200)
            #expect(index.text == #"["2026-11-20"]"#)
            #expect(index.header("Content-Type") == "application/json")
            #expect(index.header("Cache-Control") == "public, max-age=300")

            // A zip, but every run writes it again.
            let configuration = try await client.get("/" + Self.appConfig)
            #expect(configuration.header("Content-Type") == "application/zip")
            #expect(configuration.header("Cache-Control") == "public, max-age=300")
        }
    }

    @Test func nothingOutsideTheTreeOrHiddenIsServed() async throws {
        try await withServedTree { client, root in
            // Where a path that climbs out of the tree would lead (the server reads `<path>/index`).
            try ExportTreeWriter(root: root.deletingLastPathComponent()).write("secret", Data("outside the tree".utf8), immutable: false)
            try ExportTreeWriter(root: root).write("version/.hidden", Data("PK hidden".utf8), immutable: false)

            for path in ["/version/v1/diagnosis-keys/country/DE/date/2026-11-21", "/version/.hidden", "/version//v1"] {
                let response = try await client.get(path)
                #expect(response.status == 404, "\(path)")
                #expect(response.header("Content-Type")?.hasPrefix("application/json") == true, "\(path)")
            }
            // Sent as is: an HTTP client library would resolve the dots itself.
            for path in ["/version/../../secret", "/version/./v1/../../../secret", "/version/%2e%2e/%2e%2e/secret"] {
                let answer = try await RawHTTP.exchange(port: client.port, request: "GET \(path) HTTP/1.1\r\nHost: localhost\r\n\r\n")
                #expect(answer.hasPrefix("HTTP/1.1 404"), "\(path): \(answer.prefix(40))")
                #expect(!answer.contains("outside the tree"), "\(path)")
            }
        }
    }

    /// A submission service serving a tree of one key file, one index and the app configuration.
    private func withServedTree(_ body: (TestHTTPClient, URL) async throws -> Void) async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("served-\(UUID().uuidString)")
        let root = base.appendingPathComponent("exports")
        defer { try? FileManager.default.removeItem(at: base) }
        let writer = ExportTreeWriter(root: root)
        try writer.write(Self.keyFile, Data("PK key file".utf8), immutable: true)
        try writer.write(Self.dates, Data(#"["2026-11-20"]"#.utf8), immutable: false)
        try writer.write(Self.appConfig, Data("PK app configuration".utf8), immutable: false)
        try await SubmissionHarness.run(.sqlite, environment: ["SERVE_EXPORTS": "true", "EXPORT_DIR": root.path]) { harness in
            try await body(harness.client, root)
        }
    }
}
