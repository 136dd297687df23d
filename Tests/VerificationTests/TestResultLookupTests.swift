import ExposureCore
import ExposureStack
import ExposureTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import Testing
@testable import TestResult
@testable import Verification

/// `TestResultLookup` against a running test-result service: batched lookups under concurrency, a test-result
/// service of an earlier version that has no batch path, and one that stalls (the spare request).
@Suite struct TestResultLookupTests {
    @Test(arguments: TestDatabase.all)
    func concurrentLookupsThroughOneSlotEachGetTheirOwnResult(kind: TestDatabase) async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_750_000_000))
        try await TestStack.withRunning([.testResult], on: kind, clock: clock) { stack in
            let labKey = try await stack.addLab("lab-1", clock: clock)
            let lab = stack.client(.testResult, TestResultService.labListener)
            let stored = (0..<300).map { (SecretHash.sha256Hex("guid-\($0)"), 1 + $0 % 3) }
            let posted = try await lab.postJSON(
                "/api/v1/lab/results", ["testResults": stored.map { ["id": $0.0, "result": $0.1] }],
                headers: [("Authorization", "Bearer \(labKey)")]
            )
            try #require(posted.status == 204)
            let port = stack.port(.testResult, TestResultService.internalListener)
            try await Self.withLookup(port: port, concurrency: 1) { lookup in
            // 300 stored and 300 unknown ids, all at once through one request slot.
            let asked = stored + (300..<600).map { (SecretHash.sha256Hex("guid-\($0)"), 0) }
            let before = Self.lookupCounters()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (id, expected) in asked {
                    group.addTask {
                        let result = try await lookup.result(for: id)
                        #expect(result.result == expected)
                        #expect(result.labID == (expected == 0 ? nil : "lab-1"))
                    }
                }
                try await group.waitForAll()
            }
            // Other tests in the process may look up too: at least this test's 600 ids, in batches of at most
            // `maxBatch`.
            let after = Self.lookupCounters()
            #expect(after.lookups >= before.lookups + 600)
            #expect(after.requests >= before.requests + Double(600 / TestResultLookup.maxBatch))
            }
        }
    }

    /// A lookup against the test-result service on `port`, through a client of its own that is shut down however
    /// `body` ends (a client dropped without it stops the whole test process). Its deadlines are generous (they only
    /// fail a test that would otherwise hang; tests run in parallel on a busy machine), except where `policy` says.
    static func withLookup(
        port: Int, policy: DownstreamPolicy = DownstreamPolicy(timeout: .seconds(60)), concurrency: Int, batchPathRetry: Duration = .seconds(60),
        _ body: (TestResultLookup) async throws -> Void
    ) async throws {
        let http = DownstreamHTTPClient(connectTimeout: .seconds(30))
        let lookup = TestResultLookup(
            baseURL: URL(string: "http://127.0.0.1:\(port)")!, policy: policy, serviceToken: TestServiceTokens.verification,
            concurrency: concurrency, batchPathRetry: batchPathRetry, http: http, logger: TestLogger.quiet
        )
        do {
            try await body(lookup)
        } catch {
            await http.shutdown()
            throw error
        }
        await http.shutdown()
    }

    /// Verification's counters of ids looked up and of requests sent for them; their ratio is the mean batch.
    static func lookupCounters() -> (lookups: Double, requests: Double) {
        let text = PrometheusText.ofThisProcess()
        return (
            PrometheusText.count(in: text, name: "verification_testresult_lookups_total"),
            PrometheusText.count(in: text, name: "verification_testresult_requests_total")
        )
    }

    @Test
    func aTestResultServiceWithoutTheBatchPathIsAskedIdById() async throws {
        let earlier = EarlierTestResultService(results: [SecretHash.sha256Hex("guid-1"): 2])
        try await TestServices.withRunning([earlier.bundle()]) { running in
            let port = await running.bundle(EarlierTestResultService.name).port("internal")
            try await Self.withLookup(port: port, concurrency: 2) { lookup in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 0..<40 {
                    group.addTask {
                        let result = try await lookup.result(for: SecretHash.sha256Hex("guid-\(n % 4)"))
                        #expect(result.result == (n % 4 == 1 ? 2 : 0))
                    }
                }
                try await group.waitForAll()
            }
            #expect(earlier.singleLookups == 40)
            // Asked once per slot that was out before the first 404 came back, then never again.
            #expect((1...2).contains(earlier.batchAttempts))
            }
        }
    }

    @Test
    func theBatchPathIsTriedAgainAfterTheRetryInterval() async throws {
        let earlier = EarlierTestResultService(results: [:])
        try await TestServices.withRunning([earlier.bundle()]) { running in
            let port = await running.bundle(EarlierTestResultService.name).port("internal")
            try await Self.withLookup(port: port, concurrency: 1, batchPathRetry: .zero) { lookup in
            for n in 0..<3 {
                let answer = try await lookup.result(for: SecretHash.sha256Hex("guid-\(n)"))
                #expect(answer.result == 0)
            }
            #expect(earlier.batchAttempts == 3)
            #expect(earlier.singleLookups == 3)
            // Compact JSON, as every service sends it.
            #expect(earlier.lastSingleBody == #"{"id":"\#(SecretHash.sha256Hex("guid-2"))"}"#)
            }
        }
    }

    @Test
    func aLookupQueuedBehindAStalledRequestGoesInTheSpareAndIsCounted() async throws {
        let stalling = StallingTestResultService()
        try await TestServices.withRunning([stalling.bundle()]) { running in
            let port = await running.bundle(StallingTestResultService.name).port("internal")
            let policy = DownstreamPolicy(timeout: .seconds(60), attempts: 1, stalledAfter: .milliseconds(20))
            try await Self.withLookup(port: port, policy: policy, concurrency: 1) { lookup in
            let sparesBefore = Self.spareRequests()
            let stalled = Task { try await lookup.result(for: SecretHash.sha256Hex("guid-0")) }
            try await waitUntil { stalling.requestsReceived == 1 }

            // The only slot is held by a request test-result does not answer; this lookup must not wait for it.
            let queued = Task { try await lookup.result(for: SecretHash.sha256Hex("guid-1")) }
            try await waitUntil { stalling.requestsReceived == 2 }
            try #require(stalling.requestsReceived == 2, "the queued lookup went in no spare")
            #expect(try await queued.value.result == 0)
            #expect(Self.spareRequests() >= sparesBefore + 1)

            stalling.release()
            #expect(try await stalled.value.result == 0)
            }
        }
    }

    static func spareRequests() -> Double {
        PrometheusText.count(in: PrometheusText.ofThisProcess(), name: "verification_testresult_spare_requests_total")
    }

    @Test
    func theConcurrencySettingDefaultsToOneAndRefusesZero() throws {
        #expect(try VerificationConfiguration(TestServices.settings(VerificationHarness.baseSettings)).testResultConcurrency == 1)
        #expect(try VerificationConfiguration(TestServices.settings(VerificationHarness.baseSettings.merging(["TESTRESULT_CONCURRENCY": "3"]) { $1 })).testResultConcurrency == 3)
        do {
            _ = try VerificationConfiguration(TestServices.settings(VerificationHarness.baseSettings.merging(["TESTRESULT_CONCURRENCY": "0"]) { $1 }))
            Issue.record("TESTRESULT_CONCURRENCY=0 was accepted")
        } catch {
            #expect(error.variable == "TESTRESULT_CONCURRENCY")
        }
    }

    @Test
    func aTestResultServiceThatFailsMakesTheLookupADependencyError() async throws {
        let http = DownstreamHTTPClient(connectTimeout: .seconds(1))
        let lookup = TestResultLookup(
            baseURL: URL(string: "http://127.0.0.1:1")!, policy: DownstreamPolicy(timeout: .seconds(1), attempts: 1), serviceToken: TestServiceTokens.verification,
            concurrency: 1, http: http, logger: TestLogger.quiet
        )
        await #expect(throws: DownstreamError(service: "test-result service", reason: .unreachable)) { try await lookup.result(for: SecretHash.sha256Hex("guid-1")) }
        await http.shutdown()
    }
}

/// The internal listener of a test-result service from before `/api/v1/app/results`: it answers single lookups
/// as `openapi/testresult.yaml` describes them and 404 for the batch path, and counts both.
private final class EarlierTestResultService: Sendable {
    static let name = "testresult-earlier"
    private let results: [String: Int]
    private let counts = Mutex((single: 0, batch: 0))
    private let lastBody = Mutex("")

    init(results: [String: Int]) { self.results = results }

    var singleLookups: Int { counts.withLock { $0.single } }
    var batchAttempts: Int { counts.withLock { $0.batch } }
    /// The body of the last single lookup, as text.
    var lastSingleBody: String { lastBody.withLock { $0 } }

    func bundle() -> ServiceBundle {
        let router = TestServices.standInRouter(Self.name)
        router.post("/api/v1/app/result") { request, _ -> Response in
            struct Query: Decodable { let id: String }
            let received = try await request.body.collect(upTo: 10_000)
            self.lastBody.withLock { $0 = String(buffer: received) }
            let query = try JSONDecoder().decode(Query.self, from: Data(buffer: received))
            self.counts.withLock { $0.single += 1 }
            let result = self.results[query.id]
            let body = result.map { #"{"testResult":\#($0),"sc":1750000000,"labId":"lab-1"}"# } ?? #"{"testResult":0,"sc":1750000000}"#
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        router.post("/api/v1/app/results") { _, _ -> Response in
            self.counts.withLock { $0.batch += 1 }
            return Response(status: .notFound)
        }
        return TestServices.standIn(Self.name, listener: "internal", router: router)
    }
}

/// The internal listener of a test-result service that holds the first batch request it receives until released,
/// as a stalled connection or a long pause would, and answers every other at once (every id unknown).
private final class StallingTestResultService: Sendable {
    static let name = "testresult-stalling"
    private let received = Mutex(0)
    private let released = Flag()

    var requestsReceived: Int { received.withLock { $0 } }
    func release() { released.set() }

    func bundle() -> ServiceBundle {
        let router = TestServices.standInRouter(Self.name)
        router.post("/api/v1/app/results") { request, _ -> Response in
            struct Query: Decodable { let ids: [String] }
            let query = try JSONDecoder().decode(Query.self, from: Data(buffer: try await request.body.collect(upTo: 10_000)))
            let isFirst = self.received.withLock { count in
                count += 1
                return count == 1
            }
            if isFirst { try await waitUntil(limit: .seconds(20)) { self.released.isSet } }
            let answers = Array(repeating: #"{"testResult":0,"sc":1750000000}"#, count: query.ids.count).joined(separator: ",")
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: #"{"results":["# + answers + "]}"))
            )
        }
        return TestServices.standIn(Self.name, listener: "internal", router: router)
    }
}
