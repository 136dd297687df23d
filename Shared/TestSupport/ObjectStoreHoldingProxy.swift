import ExposureCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1

/// A reverse proxy in front of an S3-compatible store (moto) that passes every request on, records the key of each
/// object PUT it forwarded, and holds the PUT of one chosen key: neither forwards it nor answers it, until
/// `releaseHeld()`. A test points a distribution at the proxy, holds the PUT of a key it picked from an uninterrupted
/// run's sequence, and kills the process once the PUT is held: the process dies at that exact point of its run,
/// however fast or slow the machine, with every earlier object stored and none after.
///
/// Path-style addressing only (`/bucket/key`), as the tests configure it; the store must accept any signature (moto
/// does: the requests were signed for the proxy's host).
public final class ObjectStoreHoldingProxy: @unchecked Sendable {
    public let name = "object-store-proxy"
    public let listener = "proxy"
    private let lock = NSLock()
    private var forwarded: [String] = []
    private var keyToHold: String?
    private var heldKey: String?
    private var release = Flag()

    /// Headers that belong to one connection, which the proxy's own client sets for the upstream and Hummingbird for
    /// the caller.
    private static let perConnection: Set<String> = ["host", "connection", "content-length", "transfer-encoding", "keep-alive", "date"]

    public init() {}

    /// The keys of the object PUTs forwarded so far, in order (the bucket's name left out).
    public var forwardedPuts: [String] { lock.withLock { forwarded } }

    /// Forgets the PUTs recorded so far.
    public func clearRecord() { lock.withLock { forwarded = [] } }

    /// The next PUT of `key` is held. Any earlier hold must have been released.
    public func holdPut(of key: String) {
        lock.withLock {
            keyToHold = key
            heldKey = nil
            release = Flag()
        }
    }

    /// The key whose PUT is held now, if one is.
    public var held: String? { lock.withLock { heldKey } }

    /// Lets the held PUT go, answered 502 (its caller is normally dead by then), and holds nothing further.
    public func releaseHeld() {
        let flag = lock.withLock {
            keyToHold = nil
            return release
        }
        flag.set()
    }

    public func bundle(upstream: URL) -> ServiceBundle {
        let router = Router(context: BasicRequestContext.self)
        let client = TestHTTPClient(port: upstream.port ?? 80, host: upstream.host ?? "127.0.0.1")
        let methods: [HTTPRequest.Method: NIOHTTP1.HTTPMethod] = [.get: .GET, .head: .HEAD, .put: .PUT, .delete: .DELETE, .post: .POST]
        for (method, upstreamMethod) in methods {
            router.on("**", method: method) { request, _ -> Response in
                try await self.forward(request, as: upstreamMethod, to: client)
            }
        }
        return TestServices.standIn(name, listener: listener, router: router)
    }

    private func forward(_ request: Request, as method: NIOHTTP1.HTTPMethod, to upstream: TestHTTPClient) async throws -> Response {
        let body = Array(buffer: try await request.body.collect(upTo: 256 << 20))
        // `/bucket/key…`: an object's key is what follows the bucket (a PUT of the bucket alone creates it).
        let components = request.uri.path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: true)
        let objectKey = components.count == 2 ? String(components[1]).removingPercentEncoding : nil
        if method == .PUT, let objectKey {
            let flag: Flag? = lock.withLock {
                guard objectKey == keyToHold else { return nil }
                heldKey = objectKey
                return release
            }
            if let flag {
                // No limit worth a verdict: the test kills the caller and then releases; this only ends a hang.
                try? await flag.wait(limit: .seconds(600))
                return Response(status: .badGateway)
            }
        }
        let headers = request.headers
            .filter { !Self.perConnection.contains($0.name.canonicalName) }
            .map { ($0.name.rawName, $0.value) }
        let answer = try await upstream.request(method, request.uri.description, headers: headers, body: method == .PUT || !body.isEmpty ? body : nil)
        if method == .PUT, let objectKey, (200..<300).contains(answer.status) {
            lock.withLock { forwarded.append(objectKey) }
        }
        var fields = HTTPFields()
        for header in answer.headers where !Self.perConnection.contains(header.name.lowercased()) {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        return Response(status: .init(code: answer.status), headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
    }
}
