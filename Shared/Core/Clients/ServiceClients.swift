import AsyncHTTPClient
import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOPosix
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime

/// How a service calls another: a bounded timeout per attempt and a few retries with backoff.
public struct DownstreamPolicy: Sendable {
    public var timeout: Duration
    public var attempts: Int
    public var initialBackoff: Duration
    /// How long a batched request may be out before the lookups queued behind it take a spare request
    /// (`RequestBatcher`). Under full load here a batch is answered in a few milliseconds; a tenth of a second is a
    /// stall (a retry, a connection that stopped), not a busy moment.
    public var stalledAfter: Duration

    public init(
        timeout: Duration = .seconds(3), attempts: Int = 3, initialBackoff: Duration = .milliseconds(50),
        stalledAfter: Duration = .milliseconds(100)
    ) {
        self.timeout = timeout
        self.attempts = attempts
        self.initialBackoff = initialBackoff
        self.stalledAfter = stalledAfter
    }

    /// The longest one call can take: every attempt timing out, with the backoffs between them.
    public var longestCall: Duration {
        var total = timeout * attempts
        var backoff = initialBackoff
        for _ in 1..<max(1, attempts) {
            total += backoff
            backoff *= 2
        }
        return total
    }
}

/// Builds the transport and middleware for a generated OpenAPI client.
public enum ServiceClients {
    public static func transport(timeout: Duration, client: HTTPClient) -> AsyncHTTPClientTransport {
        let milliseconds = Int64(timeout.seconds * 1000)
        return AsyncHTTPClientTransport(configuration: .init(client: client, timeout: .milliseconds(milliseconds)))
    }

    /// Writes down the final answer's status for `DownstreamCall`, retries as `policy` says, and sends `serviceToken`: the calling service's token for the internal listener
    /// it calls (`ServiceTokens`).
    public static func middlewares(policy: DownstreamPolicy, serviceToken: String, logger: Logger) -> [any ClientMiddleware] {
        [ResponseStatusRecorder(), CredentialClientMiddleware.serviceToken(serviceToken), RetryingClientMiddleware(policy: policy, logger: logger)]
    }

    /// A readiness check that a downstream service's `/health/live` answers 200. With the service's
    /// `DownstreamHTTPClient` as `client`, a dependency that refuses connections fails the check at once, well inside
    /// a probe's timeout (Kubernetes' default is 1 s).
    public static func liveness(name: String, baseURL: URL, client: HTTPClient) -> ReadinessCheck {
        ReadinessCheck(name: name) {
            let url = baseURL.appendingPathComponent("health/live").absoluteString
            let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(2))
            guard response.status == .ok else { throw APIError.dependencyUnavailable(name) }
        }
    }
}

/// Retries an operation when the connection could not be made or closed before the answer, or a proxy answered
/// 502/503/504, with exponential backoff, up to `policy.attempts` attempts. Other answers (including 4xx and 500) are
/// final. A closed connection or a proxy's 504 can follow a request that the handler did run, so an operation retried
/// here must be safe to repeat: a TAN verification carries its redemption key for that (openapi/verification.yaml).
/// Use it with a `DownstreamHTTPClient`, which reports a refused connection at once instead of retrying it until the
/// deadline.
public struct RetryingClientMiddleware: ClientMiddleware {
    let policy: DownstreamPolicy
    let logger: Logger

    public init(policy: DownstreamPolicy, logger: Logger) {
        self.policy = policy
        self.logger = logger
    }

    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var backoff = policy.initialBackoff
        var attempt = 1
        while true {
            do {
                let (response, responseBody) = try await next(request, body, baseURL)
                guard [502, 503, 504].contains(response.status.code), attempt < policy.attempts else {
                    return (response, responseBody)
                }
                logger.warning("downstream answered \(response.status.code); retrying", metadata: ["operation": "\(operationID)", "attempt": "\(attempt)"])
            } catch {
                guard attempt < policy.attempts, Self.isConnectionFailure(error) else { throw error }
                logger.warning("downstream unreachable; retrying", metadata: ["operation": "\(operationID)", "attempt": "\(attempt)"])
            }
            try await Task.sleep(for: backoff)
            backoff *= 2
            attempt += 1
        }
    }

    /// Failures of the connection: it could not be made, or it closed before the answer came.
    static func isConnectionFailure(_ error: any Error) -> Bool {
        let underlying = (error as? ClientError)?.underlyingError ?? error
        if let httpError = underlying as? HTTPClientError {
            return [HTTPClientError.connectTimeout, .remoteConnectionClosed].contains(httpError)
        }
        if underlying is NIOConnectionError { return true }
        let text = String(describing: underlying)
        return text.contains("connectionRefused") || text.contains("Connection refused") || text.contains("connect(descriptor")
    }
}
