import ExposureBuildInfo
import ExposureCore
import ExposureTestSupport
import Foundation
import Hummingbird
import Synchronization
import Testing

@Suite struct HTTPTests {
    /// A bundle with one listener on a free port, its router built by the core and extended by `configure`.
    func withListener(
        bodyLimit: StandardRouter.BodyLimit = .init(maxBytes: 100),
        callers: (tokens: ServiceTokens, permissions: CallerPermissions)? = nil,
        configure: (Router<BasicRequestContext>) -> Void = { _ in },
        _ body: (TestHTTPClient) async throws -> Void
    ) async throws {
        let router = StandardRouter.make(service: "core-test", bodyLimit: bodyLimit, callers: callers)
        configure(router)
        let bundle = TestServices.standIn("core-test", listener: "main", router: router)
        try await TestServices.withRunning([bundle]) { running in
            try await body(await TestServices.client(running, "core-test", "main"))
        }
    }

    /// A management listener with `readiness`, on a free port.
    func withManagement(readiness: [ReadinessCheck] = [], _ body: (TestHTTPClient) async throws -> Void) async throws {
        let bundle = TestServices.standIn("core-test", listener: "management", router: ManagementRouter.make(readiness: readiness))
        try await TestServices.withRunning([bundle]) { running in
            try await body(await TestServices.client(running, "core-test", "management"))
        }
    }

    @Test func healthAndMetricsAnswerOnTheManagementListenerOnly() async throws {
        Observability.bootstrapMetrics()
        try await withListener { client in
            let live = try await client.get("/health/live")
            #expect(live.status == 200)
            // Nothing an outsider could tell the build by.
            #expect(live.text == #"{"status":"up"}"#)
            #expect(try await client.get("/health/ready").status == 404)
            #expect(try await client.get("/metrics").status == 404)
        }
        try await withManagement { client in
            // The operator's listener says which build runs.
            let live = try await client.get("/health/live")
            #expect(live.status == 200)
            #expect(live.json["status"] as? String == "up")
            #expect(live.json["version"] as? String == BuildInfo.version)
            #expect(live.json["commit"] as? String == BuildInfo.commit)
            #expect(live.json["built"] as? String == BuildInfo.buildDate)
            #expect(try await client.get("/health/ready").status == 200)
            let metrics = try await client.get("/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.header("content-type")?.hasPrefix("text/plain") == true)
            #expect(metrics.text.contains("http_requests_total"))
            #expect(metrics.text.contains(#"exposure_build_info{version="\#(BuildInfo.version)",commit="\#(BuildInfo.commit)"} 1"#))
        }
    }

    @Test func everyRequestIsCountedByRouteAndStatus() async throws {
        Observability.bootstrapMetrics()
        // A route of its own: the registry is shared with every other test in the process.
        let route = "/counted-\(UInt32.random(in: 0...UInt32.max))"
        try await withListener(configure: { router in
            router.get(RouterPath(route)) { _, _ in "ok" }
            router.post(RouterPath(route)) { _, _ -> String in throw APIError.forbidden("Not yours.", code: "not_yours") }
        }) { (client: TestHTTPClient) async throws -> Void in
            for _ in 0..<3 {
                let answer = try await client.get(route)
                #expect(answer.status == 200)
            }
            let refused = try await client.postJSON(route, [String: String]())
            #expect(refused.status == 403)
            var metrics = PrometheusText.ofThisProcess()
            #expect(Self.requestCount(in: metrics, route: route, method: "GET", status: 200) == 3)
            #expect(Self.requestCount(in: metrics, route: route, method: "POST", status: 403) == 1)
            _ = try await client.get(route)
            metrics = PrometheusText.ofThisProcess()
            #expect(Self.requestCount(in: metrics, route: route, method: "GET", status: 200) == 4)
        }
    }

    /// The value of `http_requests_total` for one route, method and status in a Prometheus text page.
    static func requestCount(in metrics: String, route: String, method: String, status: Int) -> Int? {
        PrometheusText.value(in: metrics, name: "http_requests_total", labels: ["route": route, "method": method, "status": String(status)])
            .map { Int($0) }
    }

    @Test func metricHandlesAreMadeOncePerSetOfValues() {
        let made = Mutex(0)
        let handles = MetricHandles<String> { values in
            made.withLock { $0 += 1 }
            return values.joined(separator: "/")
        }
        #expect(handles("a", "b") == "a/b")
        #expect(handles("a", "b") == "a/b")
        #expect(handles("a", "c") == "a/c")
        #expect(made.withLock { $0 } == 2)
    }

    @Test func readinessReportsAFailingDependency() async throws {
        struct Down: Error {}
        let checks = [
            ReadinessCheck(name: "database") {},
            ReadinessCheck(name: "verification") { throw Down() },
        ]
        try await withManagement(readiness: checks) { client in
            let ready = try await client.get("/health/ready")
            #expect(ready.status == 503)
            let details = ready.json["checks"] as? [String: String]
            #expect(details == ["database": "up", "verification": "down"])
        }
    }

    /// The database's check is a real round trip: a database that is gone makes the service not ready.
    @Test(arguments: TestDatabase.all)
    func theDatabaseCheckFollowsTheDatabase(kind: TestDatabase) async throws {
        try await kind.withFreshDatabaseURL { url in
            let database = try await Database.connect(url, poolSize: 1, logger: TestLogger.quiet)
            try await withManagement(readiness: [.database(database)]) { client in
                let ready = try await client.get("/health/ready")
                #expect(ready.status == 200)
                #expect(ready.json["checks"] as? [String: String] == ["database": "up"])
                await database.shutdown()
                let gone = try await client.get("/health/ready")
                #expect(gone.status == 503)
                #expect(gone.json["checks"] as? [String: String] == ["database": "down"])
            }
        }
    }

    /// A check that never finishes by itself (it waits for the test, which lets it go only after the answer) is
    /// "down" at the readiness timeout: an answer at all proves that readiness did not wait for it.
    @Test func readinessTimesOutAHangingDependency() async throws {
        let release = Flag()
        let checks = [
            ReadinessCheck(name: "slow") { try await release.wait(limit: .seconds(60)) },
            ReadinessCheck(name: "quick") {},
        ]
        try await withManagement(readiness: checks) { client in
            let ready = try await client.get("/health/ready")
            release.set()
            #expect(ready.status == 503)
            #expect(ready.json["checks"] as? [String: String] == ["slow": "down", "quick": "up"])
        }
    }

    @Test func unknownPathsAndErrorsAreJSON() async throws {
        try await withListener(configure: { router in
            router.post("/fail") { _, _ -> String in throw APIError.forbidden("Not yours.", code: "not_yours") }
            router.post("/crash") { _, _ -> String in
                struct Unexpected: Error {}
                throw Unexpected()
            }
        }) { client in
            let missing = try await client.get("/nowhere")
            #expect(missing.status == 404)
            #expect(missing.json["error"] as? String == "not_found")
            let forbidden = try await client.postJSON("/fail", [:] as [String: String])
            #expect(forbidden.status == 403)
            #expect(forbidden.json["error"] as? String == "not_yours")
            #expect(forbidden.json["message"] as? String == "Not yours.")
            let crash = try await client.postJSON("/crash", [:] as [String: String])
            #expect(crash.status == 500)
            #expect(crash.json["error"] as? String == "internal_error")
        }
    }

    @Test func oversizedAndChunkedBodiesAreRefused() async throws {
        try await withListener(bodyLimit: .init(maxBytes: 100, status: .notAcceptable, requireLength: true), configure: { router in
            router.post("/echo") { request, _ -> String in
                let body = try await request.body.collect(upTo: 1000)
                return "\(body.readableBytes)"
            }
        }) { client in
            let small = try await client.postRaw("/echo", Array(repeating: 0x41, count: 100))
            #expect(small.status == 200)
            #expect(small.text == "100")
            let large = try await client.postRaw("/echo", Array(repeating: 0x41, count: 101))
            #expect(large.status == 406)
            #expect(large.json["error"] as? String == "not_acceptable")
            // The contract refuses a body without Content-Length (chunked), however small.
            let chunked = try await client.postChunked("/echo", Array(repeating: 0x41, count: 10))
            #expect(chunked.status == 406)
            #expect(chunked.json["error"] as? String == "not_acceptable")
        }
    }
}
