import Foundation
import Hummingbird
import Logging
import CoreMetrics
import Metrics

/// Counts requests and measures their duration per route and status class; logs server errors.
///
/// Labels are the route template (never the concrete path, which could carry identifiers) and the status.
/// The client's address is never read.
public struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    private let requests: MetricHandles<Counter>
    private let durations: MetricHandles<CoreMetrics.Timer>

    public init(service: String) {
        requests = MetricHandles { values in
            Counter(label: "http_requests_total", dimensions: [("service", service), ("route", values[0]), ("method", values[1]), ("status", values[2])])
        }
        durations = MetricHandles { values in
            CoreMetrics.Timer(label: "http_request_duration_seconds", dimensions: [("service", service), ("route", values[0])], preferredDisplayUnit: .seconds)
        }
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var status = 500
        defer {
            let route = context.endpointPath ?? "unmatched"
            requests(route, request.method.rawValue, String(status)).increment()
            durations(route).recordInterval(since: start)
        }
        do {
            let response = try await next(request, context)
            status = Int(response.status.code)
            return response
        } catch let error as any HTTPResponseError {
            status = Int(error.status.code)
            throw error
        } catch {
            context.logger.error("request failed", metadata: ["route": "\(context.endpointPath ?? "unmatched")", "error": "\(type(of: error))"])
            status = 500
            throw APIError.internalError()
        }
    }
}

extension CoreMetrics.Timer {
    func recordInterval(since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        recordNanoseconds(Int64(elapsed.components.seconds) * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
    }
}
