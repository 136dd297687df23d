import Foundation
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime

extension Client {
    /// A client for the test-result service's internal API at `baseURL` (e.g. `http://localhost:8021`).
    public static func testResult(
        baseURL: URL,
        transport: some ClientTransport,
        middlewares: [any ClientMiddleware] = []
    ) -> Client {
        // Compact JSON: the runtime's default pretty-prints and sorts every request body, which only costs time
        // between services.
        Client(serverURL: baseURL, configuration: .init(jsonEncodingOptions: []), transport: transport, middlewares: middlewares)
    }
}
