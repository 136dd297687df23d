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
        make(readiness: readiness) { _ in }
    }

    /// The same with `routes`: the service's further routes for operators' systems (the statistics API), which guard
    /// themselves.
    public static func make(
        readiness: [ReadinessCheck], routes: (Router<BasicRequestContext>) throws -> Void
    ) rethrows -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: JSONErrorMiddleware())
        router.addHealthRoutes(checks: readiness)
        router.addMetricsRoute()
        try routes(router)
        return router
    }

    /// The management listener of `service`, at `common.managementListener`.
    public static func listener(service: String, readiness: [ReadinessCheck], common: CommonSettings, logger: Logger) -> HTTPListener {
        listener(service: service, readiness: readiness, common: common, logger: logger) { _ in }
    }

    /// The same with further routes (`make(readiness:routes:)`).
    public static func listener(
        service: String, readiness: [ReadinessCheck], common: CommonSettings, logger: Logger,
        routes: (Router<BasicRequestContext>) throws -> Void
    ) rethrows -> HTTPListener {
        HTTPListener(
            name: listenerName, address: common.managementListener, router: try make(readiness: readiness, routes: routes),
            serviceName: service, logger: logger, limits: common.listenerLimits
        )
    }
}
