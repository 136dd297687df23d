import ExposureCore
import ExposureTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SubmissionLemon
import Testing

/// `LEMON_STATISTICS_URL`: the daily report fetched over HTTP from a local server serving the fixture; an answer that
/// fails, is too large, is garbled or comes too late imports nothing, and the figures imported before stay.
@Suite struct LemonStatisticsURLTests {
    /// The report source: the fixture, and the ways a source goes wrong.
    static func source() throws -> ServiceBundle {
        let fixture = try Data(contentsOf: URL(fileURLWithPath: LemonStatisticsTests.fixture))
        let router = Router()
        @Sendable func bytes(_ data: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
            Response(status: status, headers: [.contentType: "text/csv"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        router.get("/daily.csv") { _, _ in bytes(Array(fixture)) }
        router.get("/gone.csv") { _, _ in bytes(Array("not here".utf8), status: .notFound) }
        // Larger than the limit, with and without a Content-Length that says so.
        router.get("/huge.csv") { _, _ in bytes(Array(fixture) + Array(repeating: UInt8(ascii: "\n"), count: 4096)) }
        router.get("/streamed.csv") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "text/csv"], body: .init { writer in
                for _ in 0..<8 { try await writer.write(ByteBuffer(bytes: Array(repeating: UInt8(ascii: "\n"), count: 1024))) }
                try await writer.finish(nil)
            })
        }
        router.get("/garbled.csv") { _, _ in bytes([0xFF, 0xFE, 0x00, 0x41] + Array(repeating: 0xC3, count: 64)) }
        router.get("/page.csv") { _, _ in bytes(Array("<html><body>Moved</body></html>".utf8)) }
        router.get("/slow.csv") { _, _ -> Response in
            try await Task.sleep(for: .seconds(3))
            return bytes(Array(fixture))
        }
        return TestServices.standIn("lemon-source", listener: "main", router: router)
    }

    @Test(arguments: TestDatabase.all)
    func theReportIsFetchedAndAFailedFetchKeepsTheFigures(kind: TestDatabase) async throws {
        try await TestServices.withRunning([try Self.source()]) { running in
            let base = "http://127.0.0.1:\(await running.bundle("lemon-source").port("main"))"
            try await LemonHarness.run(kind) { h in
                let configuration = try LemonConfiguration(TestServices.settings(LemonTestKeys.settings.merging([
                    "LEMON_STATISTICS_URL": base + "/daily.csv", "LEMON_STATISTICS_TIMEOUT": "500ms", "LEMON_STATISTICS_MAX_BYTES": "2048",
                ]) { $1 }))
                let http = DownstreamHTTPClient(connectTimeout: .seconds(2))
                defer { Task { await http.shutdown() } }
                let token = try await h.token(LemonTestDevice())
                func southAfrica() async throws -> Int? {
                    let answer = try await h.send("GET", "/api/v1/statistics/google?countries=ZA", token: token)
                    return (answer.json["Data"] as? [String: Any])?["ContractedCount"] as? Int
                }
                let rows = try await LemonStatisticsImport.run(
                    url: base + "/daily.csv", http: http.client, configuration: configuration, database: h.base.database, clock: h.clock)
                #expect(rows == 4)
                #expect(try await southAfrica() == 16433)

                for (path, reason) in [
                    ("/gone.csv", "answered 404"), ("/huge.csv", "larger than 2048 bytes"), ("/streamed.csv", "larger than 2048 bytes"),
                    ("/garbled.csv", "not UTF-8"), ("/page.csv", "no column"), ("/slow.csv", "the fetch failed"),
                    ("/nowhere.csv", "answered 404"),
                ] {
                    h.clock.advance(by: 60)
                    do {
                        try await LemonStatisticsImport.run(
                            url: base + path, http: http.client, configuration: configuration, database: h.base.database, clock: h.clock)
                        Issue.record("\(path) was imported")
                    } catch let error as LemonStatisticsImport.Unreadable {
                        #expect(error.description.contains(reason), "\(path): \(error)")
                    }
                    // The job's form of the same failure neither throws nor touches the stored figures.
                    await LemonStatisticsImport.scheduled(
                        url: base + path, http: http.client, configuration: configuration, database: h.base.database, clock: h.clock,
                        logger: TestLogger.quiet
                    )
                    #expect(try await southAfrica() == 16433, "\(path)")
                }
                // Nothing listens: the same.
                await #expect(throws: LemonStatisticsImport.Unreadable.self) {
                    try await LemonStatisticsImport.run(
                        url: "http://127.0.0.1:\(ServiceProcess.freePort())/daily.csv", http: http.client, configuration: configuration,
                        database: h.base.database, clock: h.clock)
                }
                #expect(try await southAfrica() == 16433)
            }
        }
    }

    @Test func theURLIsCheckedAtStart() throws {
        func configuration(_ extra: [String: String]) throws -> LemonConfiguration {
            try LemonConfiguration(TestServices.settings(LemonTestKeys.settings.merging(extra) { $1 }))
        }
        #expect(try configuration(["LEMON_STATISTICS_URL": "https://example.org/daily.csv"]).statisticsURL == "https://example.org/daily.csv")
        #expect(try configuration([:]).statisticsMaxBytes == 16 * 1024 * 1024)
        #expect(try configuration([:]).statisticsTimeout == .seconds(30))
        #expect(throws: ConfigurationError.self) { try configuration(["LEMON_STATISTICS_URL": "file:///etc/passwd"]) }
        #expect(throws: ConfigurationError.self) { try configuration(["LEMON_STATISTICS_URL": "not a url"]) }
        #expect(throws: ConfigurationError.self) {
            try configuration(["LEMON_STATISTICS_URL": "https://example.org/daily.csv", "LEMON_STATISTICS_FILE": "/tmp/daily.csv"])
        }
    }
}
