import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The demo's HTTP: plain requests to the running services, as a lab, a phone and an officer would make them.
struct DemoClient: Sendable {
    /// Redirects are the demo's to follow (the portal answers a form with 303), as a browser's steps are its own.
    private static let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))

    struct Response: Sendable {
        let status: Int
        let headers: HTTPHeaders
        let body: [UInt8]

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    func send(_ method: HTTPMethod, _ url: String, headers: [(String, String)] = [], body: [UInt8]? = nil) async throws -> Response {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await Self.client.execute(request, timeout: .seconds(30))
        let collected = try await response.body.collect(upTo: 256 * 1024 * 1024)
        return Response(status: Int(response.status.code), headers: response.headers, body: Array(buffer: collected))
    }

    /// Whether a service answers `/health/live` at `baseURL`.
    func isLive(_ baseURL: String) async -> Bool {
        (try? await send(.GET, baseURL + "/health/live").status) == 200
    }

    func postJSON(_ url: String, _ object: [String: Any], headers: [(String, String)] = []) async throws -> Response {
        let body = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return try await send(.POST, url, headers: headers + [("Content-Type", "application/json")], body: Array(body))
    }
}

/// A step of the demo that did not hold.
struct DemoFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
