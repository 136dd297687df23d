import ExposureCore
import Foundation
import Logging
import Metrics
import OpenAPIRuntime
import TestResultClient
import VerificationDomain

/// Asks the test-result service for results, through the client generated from `openapi/testresult.yaml`.
///
/// Lookups go in batches (`BatchedDownstream`): at most `concurrency` requests are out at once (one more while they
/// are all slower than the policy's `stalledAfter`), and the lookups of concurrent polls that queue behind them go as
/// one `/api/v1/app/results` request. A test-result service that does not know that path yet (404, during a rolling
/// upgrade) is asked id by id on `/api/v1/app/result`, and the batch path is tried again after `batchPathRetry`.
///
/// Timeouts and retries come from `DownstreamPolicy`; when the service gives no usable answer the caller gets a
/// `DownstreamError` (answered 500 `dependency_unavailable`), never a hang.
public struct TestResultLookup: Sendable {
    /// Ids per request at most: `maxItems` of `ResultBatchQuery` in openapi/testresult.yaml.
    public static let maxBatch = 100

    private let lookups: BatchedDownstream<String, LookedUpResult>

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
            call: DownstreamCall(service: "test-result service", logger: logger)
        )
        // Their ratio is the mean batch: how much the batching saves under the current load. Made once, not per
        // batch: asking the metrics factory takes its registry's lock.
        let lookupCount = Counter(label: "verification_testresult_lookups_total")
        let requestsSent = Counter(label: "verification_testresult_requests_total")
        // Spares go out only while test-result is slow to answer: a count of its stalls as the lookups saw them.
        let spares = Counter(label: "verification_testresult_spare_requests_total")
        lookups = BatchedDownstream(
            slots: concurrency, maxBatch: Self.maxBatch, policy: policy, batchPathRetry: batchPathRetry, clock: clock, logger: logger,
            noticeWhenMissing: "test-result service has no /api/v1/app/results yet; asking id by id",
            batch: requests.results(for:), single: requests.result(for:),
            spareTaken: { spares.increment() },
            batchSent: { ids in
                lookupCount.increment(by: ids)
                requestsSent.increment()
            }
        )
    }

    public func result(for id: String) async throws -> LookedUpResult {
        try await lookups.answer(for: id)
    }
}

/// The two requests behind `TestResultLookup`: a batch of ids, and one id where test-result has no batch path.
private struct Requests: Sendable {
    let client: TestResultClient.Client
    let call: DownstreamCall

    func results(for ids: [String]) async throws -> BatchPathFallback<String, LookedUpResult>.BatchAnswer {
        let (output, status) = try await call.send { try await client.getAppResults(body: .json(.init(ids: ids))) }
        switch output {
        case .ok(let ok):
            let answers = try ok.body.json.results.map(LookedUpResult.init)
            guard answers.count == ids.count else { throw call.unfitting() }
            return .answers(answers)
        case .undocumented(404, _):
            return .pathMissing
        default:
            throw call.unexpected(status: status)
        }
    }

    func result(for id: String) async throws -> LookedUpResult {
        let (output, status) = try await call.send { try await client.getAppResult(body: .json(.init(id: id))) }
        guard case .ok(let ok) = output else { throw call.unexpected(status: status) }
        return LookedUpResult(try ok.body.json)
    }
}

private extension LookedUpResult {
    init(_ answer: TestResultClient.Components.Schemas.ResultAnswer) {
        self.init(result: answer.testResult, sampleCollection: answer.sc, labID: answer.labId)
    }
}
