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
        Client(serverURL: baseURL, transport: transport, middlewares: middlewares)
    }
}
