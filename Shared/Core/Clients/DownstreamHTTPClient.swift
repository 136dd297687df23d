import AsyncHTTPClient
import OpenAPIAsyncHTTPClient

/// A dedicated HTTP client for calls to another service, that reports a connection it cannot establish at once.
///
/// `HTTPClient.shared` retries connection establishment by itself until the request's deadline, so a service
/// that is down costs the full timeout on every attempt (three attempts of 3 s: about 10 s before the caller
/// can answer). Where `RetryingClientMiddleware` already retries connection failures a bounded number of times
/// with backoff, that inner retry only adds waiting: this client turns it off, and an unreachable service is
/// reported within milliseconds. Shut it down when the service stops.
public final class DownstreamHTTPClient: Sendable {
    public let client: HTTPClient

    public init(connectTimeout: Duration) {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .milliseconds(Int64(connectTimeout.seconds * 1000))
        self.client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// A transport for a generated OpenAPI client, with a timeout per request.
    public func transport(timeout: Duration) -> AsyncHTTPClientTransport {
        ServiceClients.transport(timeout: timeout, client: client)
    }

    public func shutdown() async {
        try? await client.shutdown()
    }
}
