import ExposureCore
import Foundation
import Logging
import HTTPTypes
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime

/// Reads one service's statistics API (`openapi/statistics.yaml`) with a reader's token: what the portal shows.
public struct StatisticsClient: Sendable {
    public enum Failure: Error, Sendable, Equatable {
        /// The service refused the token (401) or the range (400): a setting to fix.
        case refused
        /// The service could not be reached or failed.
        case unavailable
    }

    /// The service these counts come from (`verification`).
    public let service: String
    private let client: Client

    public init(service: String, baseURL: URL, token: String, policy: DownstreamPolicy, http: DownstreamHTTPClient, logger: Logger) {
        self.service = service
        client = Client(
            serverURL: baseURL, configuration: .init(jsonEncodingOptions: []), transport: http.transport(timeout: policy.timeout),
            middlewares: [CredentialClientMiddleware.bearer(token), RetryingClientMiddleware(policy: policy, logger: logger)]
        )
    }

    /// The counts of the days from `from` through `to`.
    public func counts(from: StatisticsDay, through to: StatisticsDay) async throws(Failure) -> [DailyCount] {
        let output: Operations.getStatistics.Output
        do {
            output = try await client.getStatistics(query: .init(from: from.description, to: to.description, format: .json))
        } catch {
            throw .unavailable
        }
        switch output {
        case .ok(let ok):
            guard case .json(let report) = ok.body else { throw .unavailable }
            var counts: [DailyCount] = []
            for row in report.counts {
                guard let day = StatisticsDay(row.day) else { throw .unavailable }
                counts.append(DailyCount(day: day, figure: row.figure, breakdown: row.breakdown, count: row.count))
            }
            return counts
        case .badRequest, .unauthorized: throw .refused
        case .internalServerError, .undocumented: throw .unavailable
        }
    }
}
