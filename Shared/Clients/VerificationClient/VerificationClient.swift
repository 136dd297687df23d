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
        // Compact JSON: the runtime's default pretty-prints and sorts every request body, which only costs time
        // between services.
        Client(serverURL: baseURL, configuration: .init(jsonEncodingOptions: []), transport: transport, middlewares: middlewares)
    }
}
