import ExposureCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A reverse proxy in front of one of our listeners that passes the POSTs to `paths` on, and for the first `dropping`
/// of them throws the answer away and says 504, as a proxy does whose upstream answered after its deadline. The
/// upstream has then handled the request (spent a TAN, issued a teleTAN); the caller cannot know. POSTs to `passing`
/// go through untouched and uncounted. POSTs to `holding` are held, before or after the upstream handled them, until
/// `releaseHeld()`, and then answered 502: a test kills the caller while its request is held, at a point it chose.
public final class AnswerDroppingProxy: @unchecked Sendable {
    public let name: String
    public let listener: String
    private let paths: [String]
    private let passing: [String]
    private let holding: [String: Hold]
    private var held = 0
    private var released = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Where a held request waits.
    public enum Hold: Sendable {
        /// Before it reaches the upstream: the upstream never sees it.
        case beforeForwarding
        /// After the upstream answered: the upstream did the work, the caller never hears of it.
        case afterForwarding
    }
    private let lock = NSLock()
    private var toDrop: Int
    private var passed = 0

    /// Headers that belong to one connection, which the proxy's own client sets for the upstream and Hummingbird for
    /// the caller.
    private static let perConnection: Set<String> = ["host", "connection", "content-length", "transfer-encoding", "keep-alive", "date"]

    public init(
        name: String = "proxy", listener: String = "internal", paths: [String], passing: [String] = [], dropping: Int,
        holding: [String: Hold] = [:]
    ) {
        self.name = name
        self.listener = listener
        self.paths = paths
        self.passing = passing
        self.holding = holding
        toDrop = dropping
    }

    /// How many requests reached the upstream through the proxy, dropped answers included.
    public var passedCount: Int { lock.withLock { passed } }

    /// How many requests are held now or were held.
    public var heldCount: Int { lock.withLock { held } }

    /// Returns once a request is held (or was), or throws after `timeout`.
    public func waitUntilHeld(timeout: Duration = .seconds(30)) async throws {
        let end = ContinuousClock.now + timeout
        while heldCount == 0 {
            guard ContinuousClock.now < end else { throw ProxyHoldTimeout() }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Lets every held request go (answered 502, the upstream's answer dropped), and those to come pass untouched.
    public func releaseHeld() {
        let continuations = lock.withLock {
            released = true
            defer { waiting = [] }
            return waiting
        }
        continuations.forEach { $0.resume() }
    }

    private func hold() async {
        await withCheckedContinuation { continuation in
            let go = lock.withLock {
                held += 1
                if released { return true }
                waiting.append(continuation)
                return false
            }
            if go { continuation.resume() }
        }
    }

    public func bundle(upstreamPort: Int) -> ServiceBundle {
        let router = TestServices.standInRouter(name)
        let upstream = TestHTTPClient(port: upstreamPort)
        for path in paths + passing + holding.keys {
            let droppable = paths.contains(path)
            router.post(RouterPath(path)) { request, _ -> Response in
                // Once released, a held path passes like the others.
                let hold = self.lock.withLock { self.released } ? nil : self.holding[path]
                let body = Array(buffer: try await request.body.collect(upTo: 10_000))
                let forwarded = request.headers
                    .filter { !Self.perConnection.contains($0.name.canonicalName) }
                    .map { ($0.name.rawName, $0.value) }
                if hold == .beforeForwarding {
                    await self.hold()
                    return Response(status: .badGateway)
                }
                let answer = try await upstream.request(.POST, path, headers: forwarded, body: body.isEmpty ? nil : body)
                if hold == .afterForwarding {
                    await self.hold()
                    return Response(status: .badGateway)
                }
                let drop = droppable && self.lock.withLock {
                    self.passed += 1
                    guard self.toDrop > 0 else { return false }
                    self.toDrop -= 1
                    return true
                }
                if drop { return Response(status: .gatewayTimeout) }
                var headers = HTTPFields()
                for header in answer.headers where !Self.perConnection.contains(header.name.lowercased()) {
                    if let name = HTTPField.Name(header.name) { headers.append(HTTPField(name: name, value: header.value)) }
                }
                return Response(
                    status: .init(code: answer.status), headers: headers,
                    body: .init(byteBuffer: ByteBuffer(bytes: answer.body))
                )
            }
        }
        return TestServices.standIn(name, listener: listener, router: router)
    }
}

/// No request reached a held path in time.
public struct ProxyHoldTimeout: Error {}
