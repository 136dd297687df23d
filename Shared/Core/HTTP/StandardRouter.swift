import HTTPTypes
import Hummingbird
import Logging
import OpenAPIRuntime

/// The router every listener starts from: metrics, JSON errors, a body size limit and the health routes.
public enum StandardRouter {
    public struct BodyLimit: Sendable {
        public var maxBytes: Int
        public var status: HTTPResponse.Status
        public var requireLength: Bool

        public init(maxBytes: Int, status: HTTPResponse.Status = .contentTooLarge, requireLength: Bool = false) {
            self.maxBytes = maxBytes
            self.status = status
            self.requireLength = requireLength
        }
    }

    public static func make(
        service: String,
        bodyLimit: BodyLimit,
        readiness: [ReadinessCheck],
        metrics: Bool
    ) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: RequestMetricsMiddleware(service: service))
        router.add(middleware: JSONErrorMiddleware())
        router.add(middleware: RequestBodyLimitMiddleware(maxBytes: bodyLimit.maxBytes, status: bodyLimit.status, requireLength: bodyLimit.requireLength))
        router.addHealthRoutes(checks: readiness)
        if metrics { router.addMetricsRoute() }
        return router
    }

    /// The OpenAPI runtime configuration every server uses: compact, sorted JSON (what `ResponsePadding`
    /// measures).
    public static var openAPIConfiguration: OpenAPIRuntime.Configuration {
        OpenAPIRuntime.Configuration(jsonEncodingOptions: [.sortedKeys])
    }
}
