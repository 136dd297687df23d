import Hummingbird
import Logging

/// The routes of a service's management listener: what operators and their tools read.
///
/// `/metrics` (Prometheus), `/health/live` and `/health/ready` (for probes). The listener binds to
/// `MANAGEMENT_BIND_HOST` (loopback unless an operator opens it to the monitoring network) and to no address that
/// apps, labs or officers reach: what the counters and the readiness of dependencies say about the service's traffic
/// is for the people who run it (docs/privacy.md, "Metrics").
public enum ManagementRouter {
    public static let listenerName = "management"

    public static func make(readiness: [ReadinessCheck]) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: JSONErrorMiddleware())
        router.addHealthRoutes(checks: readiness)
        router.addMetricsRoute()
        return router
    }

    /// The management listener of `service`, at `common.managementListener`.
    public static func listener(service: String, readiness: [ReadinessCheck], common: CommonSettings, logger: Logger) -> HTTPListener {
        HTTPListener(
            name: listenerName, address: common.managementListener, router: make(readiness: readiness),
            serviceName: service, logger: logger, limits: common.listenerLimits
        )
    }
}
