import ExposureCore
import ExposureStatistics
import Foundation
import Logging
import Metrics
import OpenAPIRuntime
import TestResultDomain

/// The handlers of `openapi/testresult.yaml`: validation and storage rules live in `Domain/` and `Storage/`.
struct TestResultAPI: APIProtocol {
    let store: TestResultStore
    /// The labs' credentials, for the portal (`+LabCredentials`).
    let credentials: LabCredentialStore
    let validator: ResultBatchValidator
    let clock: any WallClock
    /// Makes new lab API keys.
    let random: any RandomSource
    /// Lookups by outcome, published per finished hour only: a found result is a real poll, an unknown id most
    /// often a fake one's decoy, so a counter that moved per lookup would tell the two apart.
    let tally: HourlyTally
    /// Daily statistics: results received per lab, kind and result (docs/statistics.md).
    let statistics: DailyCounter
    let logger: Logger
    /// Lab results stored, by `<lab>/<kind>/<result code>` (`lab-1/pcr/2`): what labs send, not what apps do.
    static let labResultsReceived = DailyFigure("lab_results_received", isAppSide: false)
    private let receivedCounters = MetricHandles<Counter> { values in
        Counter(label: "testresult_results_received_total", dimensions: [("kind", values[0]), ("result", values[1])])
    }
    private let rejectedBatchCounters = MetricHandles<Counter> { values in
        Counter(label: "testresult_batches_rejected_total", dimensions: [("kind", values[0]), ("reason", values[1])])
    }
    private let refusedUpdateCounters = MetricHandles<Counter> { values in
        Counter(label: "testresult_updates_refused_total", dimensions: [("kind", values[0])])
    }

    func postLabResults(_ input: Operations.postLabResults.Input) async throws -> Operations.postLabResults.Output {
        guard case .json(let batch) = input.body else { throw APIError.forStatus(.unsupportedMediaType) }
        let results = batch.testResults.map { IncomingResult(id: $0.id, result: $0.result, sampleCollection: $0.sc) }
        try await storeBatch(results, claimedLab: batch.labId, kind: .pcr)
        return .noContent(.init())
    }

    func postQuickTestResults(_ input: Operations.postQuickTestResults.Input) async throws -> Operations.postQuickTestResults.Output {
        guard case .json(let batch) = input.body else { throw APIError.forStatus(.unsupportedMediaType) }
        let results = batch.testResults.map { IncomingResult(id: $0.id, result: $0.result, sampleCollection: $0.sc) }
        try await storeBatch(results, claimedLab: batch.labId, kind: .quick)
        return .noContent(.init())
    }

    func getAppResult(_ input: Operations.getAppResult.Input) async throws -> Operations.getAppResult.Output {
        guard case .json(let query) = input.body else { throw APIError.forStatus(.unsupportedMediaType) }
        guard Codes.isHashedGUID(query.id, allowDobPrefix: true) else {
            throw refusedQuery(.badRequest("id must be 64 hexadecimal characters (the first may be x).", code: "invalid_id"))
        }
        let stored = try await store.find(id: query.id)
        countQueries(found: stored == nil ? 0 : 1, unknown: stored == nil ? 1 : 0)
        return .ok(.init(body: .json(answer(for: stored, now: clock.now()))))
    }

    func getAppResults(_ input: Operations.getAppResults.Input) async throws -> Operations.getAppResults.Output {
        guard case .json(let query) = input.body else { throw APIError.forStatus(.unsupportedMediaType) }
        guard query.ids.count <= ResultLookupBatch.maxIDs else {
            throw refusedQuery(APIError(.contentTooLarge, code: "too_many_ids", message: "At most \(ResultLookupBatch.maxIDs) ids per request."))
        }
        guard !query.ids.isEmpty else {
            throw refusedQuery(.badRequest("ids must hold at least one id.", code: "invalid_id"))
        }
        if let bad = query.ids.firstIndex(where: { !Codes.isHashedGUID($0, allowDobPrefix: true) }) {
            throw refusedQuery(.badRequest("ids[\(bad)] must be 64 hexadecimal characters (the first may be x).", code: "invalid_id"))
        }
        let ids = query.ids.map { $0.lowercased() }
        let stored = try await store.find(ids: ids)
        let now = clock.now()
        let answers = ids.map { answer(for: stored[$0], now: now) }
        let found = ids.filter { stored[$0] != nil }.count
        countQueries(found: found, unknown: ids.count - found)
        return .ok(.init(body: .json(.init(results: answers))))
    }

    /// An unknown id is pending as of now; nothing is written on a read.
    private func answer(for stored: StoredResult?, now: Date) -> Components.Schemas.ResultAnswer {
        Components.Schemas.ResultAnswer(
            testResult: stored?.result ?? TestResultCode.pending.rawValue,
            sc: stored?.sampleCollection ?? now.epochSeconds,
            labId: stored?.labID
        )
    }

    /// Counts a refused lookup request and returns the error to answer it with.
    private func refusedQuery(_ error: APIError) -> APIError {
        countQueries("invalid")
        return error
    }

    private func countQueries(found: Int, unknown: Int) {
        countQueries("found", by: found)
        countQueries("unknown", by: unknown)
    }

    private func storeBatch(_ results: [IncomingResult], claimedLab: String?, kind: ResultKind) async throws {
        guard let labID = AuthenticatedLab.labID else { throw APIError.unauthorized() }
        if let claimed = claimedLab, claimed != labID {
            rejectedBatchCounters(kind.rawValue, "lab_mismatch").increment()
            throw APIError.forbidden("labId does not match the lab of the credential.", code: "lab_mismatch")
        }
        let now = clock.now()
        let valid: [ValidResult]
        do {
            valid = try validator.validate(results, kind: kind, now: now)
        } catch {
            rejectedBatchCounters(kind.rawValue, error.reason.rawValue).increment()
            if error.reason == .tooLarge { throw APIError(.contentTooLarge, code: "batch_too_large", message: error.message) }
            throw APIError.badRequest(error.message, code: "invalid_result")
        }
        let outcome = try await store.store(valid, labID: labID, now: now)
        // One increment per result code, not per result: a batch holds up to a thousand.
        var received: [Int: Int] = [:]
        for result in valid { received[result.result.rawValue, default: 0] += 1 }
        for (code, count) in received {
            receivedCounters(kind.rawValue, String(code)).increment(by: count)
            statistics.count(Self.labResultsReceived, breakdown: "\(labID)/\(kind.rawValue)/\(code)", by: count)
        }
        if outcome.refused > 0 {
            refusedUpdateCounters(kind.rawValue).increment(by: outcome.refused)
            logger.notice("results not updated (redeemed or owned by another lab)", metadata: ["lab": "\(labID)", "count": "\(outcome.refused)"])
        }
    }

    private func countQueries(_ outcome: String, by amount: Int = 1) {
        tally.count(.init("testresult_queries_last_hour", [("outcome", outcome)]), by: amount)
    }
}
