import AsyncHTTPClient
import ExposureCore
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import Testing

/// A response as a test sees it: status, headers and the raw body.
public struct TestResponse: Sendable {
    public let status: Int
    public let headers: HTTPHeaders
    public let body: [UInt8]
    /// What was asked: method and path without the query (`POST /version/v1/tan`), for `Covers.status`.
    public let request: String

    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON object (empty when it is not one).
    public var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
    }

    public func header(_ name: String) -> String? { headers.first(name: name) }

    /// Expects the JSON error every service answers: `status`, a JSON content type and `code` in its `error`.
    public func expectError(_ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(self.status == status, sourceLocation: sourceLocation)
        #expect(header("Content-Type")?.hasPrefix("application/json") == true, sourceLocation: sourceLocation)
        #expect(json["error"] as? String == code, sourceLocation: sourceLocation)
    }
}

/// Real HTTP against a service listening on localhost, as an app, a lab or another service would call it.
public struct TestHTTPClient: Sendable {
    public let baseURL: String
    public let port: Int
    /// Sent with every request before the request's own (another service's `X-Service-Token`, say).
    public let defaultHeaders: [(String, String)]
    /// For an internal listener: the `X-Service-Token` to present for a path (the token of the service that calls it,
    /// `TestServiceTokens.token(forInternalPath:)`), unless the request names its own.
    public var serviceToken: (@Sendable (String) -> String)?
    /// The client requests go through: the shared one (8 connections per host) unless `using(_:)` chose another.
    public private(set) var http: HTTPClient = .shared
    /// How long one request may take unless it names its own: only a guard against a hang. A loaded CI machine
    /// (every suite's services at once on two cores) has kept a request of a thousand codes, and one of fifty
    /// concurrent issuances, past 30 s; tests count answers, and how fast they come is for the benchmarks.
    public private(set) var timeout: TimeAmount = .seconds(120)

    public init(port: Int, host: String = "127.0.0.1", headers: [(String, String)] = []) {
        self.baseURL = "http://\(host):\(port)"
        self.port = port
        self.defaultHeaders = headers
    }

    /// The same service through `http`, for example one with more connections (`withManyConnections`).
    public func using(_ http: HTTPClient) -> TestHTTPClient {
        var copy = self
        copy.http = http
        return copy
    }

    public func request(
        _ method: NIOHTTP1.HTTPMethod,
        _ path: String,
        headers: [(String, String)] = [],
        body: [UInt8]? = nil,
        timeout: TimeAmount? = nil
    ) async throws -> TestResponse {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        for (name, value) in allHeaders(path: path, headers) { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await http.execute(request, timeout: timeout ?? self.timeout)
        let collected = try await response.body.collect(upTo: 64 * 1024 * 1024)
        return TestResponse(
            status: Int(response.status.code), headers: response.headers, body: Array(buffer: collected),
            request: Covers.request(method.rawValue, path)
        )
    }

    /// The default headers, the service token for `path` when the request carries none, and the request's own.
    func allHeaders(path: String, _ headers: [(String, String)]) -> [(String, String)] {
        let own = headers.contains { $0.0.lowercased() == ServiceTokens.header.lowercased() }
        guard let serviceToken, !own else { return defaultHeaders + headers }
        let bare = String(path.prefix { $0 != "?" })
        return defaultHeaders + [(ServiceTokens.header, serviceToken(bare))] + headers
    }

    public func get(_ path: String, headers: [(String, String)] = []) async throws -> TestResponse {
        try await request(.GET, path, headers: headers)
    }

    /// POSTs a JSON object (serialised with sorted keys).
    public func postJSON(_ path: String, _ object: Any, headers: [(String, String)] = []) async throws -> TestResponse {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return try await postRaw(path, Array(data), headers: headers)
    }

    /// POSTs bytes exactly as given, with a JSON content type unless one is passed.
    public func postRaw(_ path: String, _ body: [UInt8], headers: [(String, String)] = [], contentType: String = "application/json") async throws -> TestResponse {
        var all = headers
        if !all.contains(where: { $0.0.lowercased() == "content-type" }) { all.append(("Content-Type", contentType)) }
        return try await request(.POST, path, headers: all, body: body)
    }
}

extension TestHTTPClient {
    /// POSTs a body without a length, so that it goes out with `Transfer-Encoding: chunked`.
    public func postChunked(_ path: String, _ body: [UInt8], headers: [(String, String)] = []) async throws -> TestResponse {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        for (name, value) in allHeaders(path: path, headers) { request.headers.add(name: name, value: value) }
        let chunks = [ByteBuffer(bytes: body)]
        request.body = .stream(chunks.async, length: .unknown)
        let response = try await http.execute(request, timeout: timeout)
        let collected = try await response.body.collect(upTo: 1024 * 1024)
        return TestResponse(
            status: Int(response.status.code), headers: response.headers, body: Array(buffer: collected),
            request: Covers.request("POST", path)
        )
    }
}

extension Array where Element == ByteBuffer {
    fileprivate var async: AsyncStream<ByteBuffer> {
        AsyncStream { continuation in
            for element in self { continuation.yield(element) }
            continuation.finish()
        }
    }
}
