import ExposureCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A reverse proxy in front of one of our listeners that passes the POSTs to `paths` on, and for the first `dropping`
/// of them throws the answer away and says 504, as a proxy does whose upstream answered after its deadline. The
/// upstream has then handled the request (spent a TAN, issued a teleTAN); the caller cannot know. POSTs to `passing`
/// go through untouched and uncounted.
public final class AnswerDroppingProxy: @unchecked Sendable {
    public let name: String
    public let listener: String
    private let paths: [String]
    private let passing: [String]
    private let lock = NSLock()
    private var toDrop: Int
    private var passed = 0

    /// Headers that belong to one connection, which the proxy's own client sets for the upstream and Hummingbird for
    /// the caller.
    private static let perConnection: Set<String> = ["host", "connection", "content-length", "transfer-encoding", "keep-alive", "date"]

    public init(name: String = "proxy", listener: String = "internal", paths: [String], passing: [String] = [], dropping: Int) {
        self.name = name
        self.listener = listener
        self.paths = paths
        self.passing = passing
        toDrop = dropping
    }

    /// How many requests reached the upstream through the proxy, dropped answers included.
    public var passedCount: Int { lock.withLock { passed } }

    public func bundle(upstreamPort: Int) -> ServiceBundle {
        let router = TestServices.standInRouter(name)
        let upstream = TestHTTPClient(port: upstreamPort)
        for path in paths + passing {
            let droppable = paths.contains(path)
            router.post(RouterPath(path)) { request, _ -> Response in
                let body = Array(buffer: try await request.body.collect(upTo: 10_000))
                let forwarded = request.headers
                    .filter { !Self.perConnection.contains($0.name.canonicalName) }
                    .map { ($0.name.rawName, $0.value) }
                let answer = try await upstream.request(.POST, path, headers: forwarded, body: body.isEmpty ? nil : body)
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
