import ExposureCore
import Foundation
import Logging
import OpenAPIRuntime
import TestResultClient

/// Asks the test-result service for results, through the client generated from `openapi/testresult.yaml`.
///
/// Timeouts and retries come from `DownstreamPolicy`; when the service cannot be reached the caller gets
/// `APIError.dependencyUnavailable` (500 with a JSON body), never a hang.
public struct TestResultLookup: Sendable {
    private let client: TestResultClient.Client
    private let logger: Logger

    public init(baseURL: URL, policy: DownstreamPolicy, http: DownstreamHTTPClient, logger: Logger) {
        self.client = TestResultClient.Client.testResult(
            baseURL: baseURL,
            transport: http.transport(timeout: policy.timeout),
            middlewares: ServiceClients.middlewares(policy: policy, logger: logger)
        )
        self.logger = logger
    }

    public func result(for id: String) async throws -> LookedUpResult {
        let output: TestResultClient.Operations.getAppResult.Output
        do {
            output = try await client.getAppResult(body: .json(.init(id: id)))
        } catch {
            logger.warning("test-result service unreachable", metadata: ["error": "\(String(describing: (error as? ClientError)?.underlyingError ?? error))"])
            throw APIError.dependencyUnavailable("test-result service")
        }
        switch output {
        case .ok(let ok):
            let answer = try ok.body.json
            return LookedUpResult(result: answer.testResult, sampleCollection: answer.sc, labID: answer.labId)
        default:
            logger.warning("test-result service refused a lookup", metadata: ["answer": "\(Self.status(of: output))"])
            throw APIError.dependencyUnavailable("test-result service")
        }
    }

    private static func status(of output: TestResultClient.Operations.getAppResult.Output) -> String {
        switch output {
        case .ok: "200"
        case .badRequest: "400"
        case .contentTooLarge: "413"
        case .internalServerError: "500"
        case .undocumented(let statusCode, _): "\(statusCode)"
        }
    }
}
