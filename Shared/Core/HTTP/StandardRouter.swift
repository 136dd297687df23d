import HTTPTypes
import Hummingbird
import Logging
import OpenAPIRuntime

/// The router every listener that apps, labs, officers or other services reach starts from: request metrics, JSON
/// errors, a body size limit and `/health/live`. Nothing for operators: `/metrics` and `/health/ready` are on the
/// service's management listener only (`ManagementRouter`).
public enum StandardRouter {
    public struct BodyLimit: Sendable {
        public var maxBytes: Int
        public var status: HTTPResponse.Status
        public var requireLength: Bool
        /// Path prefixes of an app family whose contract sets its own limit and its own answer (ENX's `/api/`: 64,000
        /// bytes, a 400 in its own error form); its handlers enforce them, this limit leaves their requests alone.
        public var exemptPathPrefixes: [String]

        public init(maxBytes: Int, status: HTTPResponse.Status = .contentTooLarge, requireLength: Bool = false, exemptPathPrefixes: [String] = []) {
            self.maxBytes = maxBytes
            self.status = status
            self.requireLength = requireLength
            self.exemptPathPrefixes = exemptPathPrefixes
        }
    }

    /// - Parameter callers: for an internal listener, the services allowed to call it and the routes each may call;
    ///   every route but `/health/live` then answers 401 to a request without one of their tokens, and 403 to a
    ///   caller the table does not give the route (`ServiceTokenMiddleware`).
    public static func make(
        service: String, bodyLimit: BodyLimit, callers: (tokens: ServiceTokens, permissions: CallerPermissions)? = nil
    ) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: RequestMetricsMiddleware(service: service))
        router.add(middleware: JSONErrorMiddleware())
        if let callers { router.add(middleware: ServiceTokenMiddleware(tokens: callers.tokens, permissions: callers.permissions)) }
        router.add(middleware: RequestBodyLimitMiddleware(
            maxBytes: bodyLimit.maxBytes, status: bodyLimit.status, requireLength: bodyLimit.requireLength, exemptPathPrefixes: bodyLimit.exemptPathPrefixes
        ))
        // A load balancer's or a calling service's check that the process answers: a constant, nothing to learn.
        router.addLivenessRoute()
        return router
    }

    /// The OpenAPI runtime configuration every server uses: compact, sorted JSON (what `ResponsePadding`
    /// measures).
    public static var openAPIConfiguration: OpenAPIRuntime.Configuration {
        OpenAPIRuntime.Configuration(jsonEncodingOptions: [.sortedKeys])
    }
}
