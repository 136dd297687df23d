import Foundation
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime

extension Client {
    /// A client for the verification service's internal API at `baseURL` (e.g. `http://localhost:8011`).
    public static func verification(
        baseURL: URL,
        transport: some ClientTransport,
        middlewares: [any ClientMiddleware] = []
    ) -> Client {
        Client(serverURL: baseURL, transport: transport, middlewares: middlewares)
    }
}
