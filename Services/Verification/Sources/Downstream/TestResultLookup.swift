import ExposureCore
import Foundation
import Logging
import Metrics
import OpenAPIRuntime
import TestResultClient

/// Asks the test-result service for results, through the client generated from `openapi/testresult.yaml`.
///
/// Lookups go through a `RequestBatcher`: at most `concurrency` requests are out at once (one more while they are
/// all slower than the policy's `stalledAfter`), and the lookups of concurrent polls that queue behind them go as
/// one `/api/v1/app/results` request. A test-result service that does not know that path yet (404, during a
/// rolling upgrade) is asked id by id on `/api/v1/app/result`, and the batch path is tried again after
/// `batchPathRetry`.
///
/// Timeouts and retries come from `DownstreamPolicy`; when the service cannot be reached the caller gets
/// `APIError.dependencyUnavailable` (500 with a JSON body), never a hang.
public struct TestResultLookup: Sendable {
    /// Ids per request at most: `maxItems` of `ResultBatchQuery` in openapi/testresult.yaml.
    public static let maxBatch = 100

    private let batcher: RequestBatcher<String, LookedUpResult>

    /// - Parameter batchPathRetry: how long to ask id by id after the batch path answered 404, before trying it
    ///   again (the test-result service may have been upgraded meanwhile).
    public init(
        baseURL: URL, policy: DownstreamPolicy, serviceToken: String, concurrency: Int, batchPathRetry: Duration = .seconds(60),
        clock: any WallClock = SystemClock(), http: DownstreamHTTPClient, logger: Logger
    ) {
        let requests = Requests(
            client: TestResultClient.Client.testResult(
                baseURL: baseURL,
                transport: http.transport(timeout: policy.timeout),
                middlewares: ServiceClients.middlewares(policy: policy, serviceToken: serviceToken, logger: logger)
            ),
            logger: logger
        )
        let paths = BatchPathFallback<String, LookedUpResult>(
            retryAfter: batchPathRetry, clock: clock, logger: logger,
            noticeWhenMissing: "test-result service has no /api/v1/app/results yet; asking id by id",
            batch: requests.results(for:), single: requests.result(for:)
        )
        // Their ratio is the mean batch: how much the batching saves under the current load. Made once, not per
        // batch: asking the metrics factory takes its registry's lock.
        let lookups = Counter(label: "verification_testresult_lookups_total")
        let requestsSent = Counter(label: "verification_testresult_requests_total")
        // Spares go out only while test-result is slow to answer: a count of its stalls as the lookups saw them.
        let spares = Counter(label: "verification_testresult_spare_requests_total")
        batcher = RequestBatcher(
            slots: concurrency, maxBatch: Self.maxBatch, spareAfter: policy.stalledAfter, spareTaken: { spares.increment() }
        ) { ids in
            lookups.increment(by: ids.count)
            requestsSent.increment()
            return try await paths.answers(for: ids)
        }
    }

    public func result(for id: String) async throws -> LookedUpResult {
        try await batcher.value(for: id)
    }
}

/// The two requests behind `TestResultLookup`: a batch of ids, and one id where test-result has no batch path.
private struct Requests: Sendable {
    let client: TestResultClient.Client
    let logger: Logger

    func results(for ids: [String]) async throws -> BatchPathFallback<String, LookedUpResult>.BatchAnswer {
        let output = try await send { try await client.getAppResults(body: .json(.init(ids: ids))) }
        switch output {
        case .ok(let ok):
            return .answers(try ok.body.json.results.map(LookedUpResult.init))
        case .undocumented(404, _):
            return .pathMissing
        default:
            throw refused(Self.status(of: output))
        }
    }

    func result(for id: String) async throws -> LookedUpResult {
        let output = try await send { try await client.getAppResult(body: .json(.init(id: id))) }
        guard case .ok(let ok) = output else { throw refused(Self.status(of: output)) }
        return LookedUpResult(try ok.body.json)
    }

    private func send<Output>(_ request: () async throws -> Output) async throws -> Output {
        do {
            return try await request()
        } catch {
            logger.warning("test-result service unreachable", metadata: ["error": "\(String(describing: (error as? ClientError)?.underlyingError ?? error))"])
            throw APIError.dependencyUnavailable("test-result service")
        }
    }

    private func refused(_ status: String) -> APIError {
        // 401: test-result does not know this service's token (TESTRESULT_API_TOKEN against its INTERNAL_API_TOKENS).
        logger.warning("test-result service refused a lookup", metadata: ["answer": "\(status)"])
        return APIError.dependencyUnavailable("test-result service")
    }

    private static func status(of output: TestResultClient.Operations.getAppResults.Output) -> String {
        switch output {
        case .ok: "200"
        case .badRequest: "400"
        case .unauthorized: "401"
        case .contentTooLarge: "413"
        case .unsupportedMediaType: "415"
        case .internalServerError: "500"
        case .undocumented(let statusCode, _): "\(statusCode)"
        }
    }

    private static func status(of output: TestResultClient.Operations.getAppResult.Output) -> String {
        switch output {
        case .ok: "200"
        case .badRequest: "400"
        case .unauthorized: "401"
        case .contentTooLarge: "413"
        case .unsupportedMediaType: "415"
        case .internalServerError: "500"
        case .undocumented(let statusCode, _): "\(statusCode)"
        }
    }
}

private extension LookedUpResult {
    init(_ answer: TestResultClient.Components.Schemas.ResultAnswer) {
        self.init(result: answer.testResult, sampleCollection: answer.sc, labID: answer.labId)
    }
}
