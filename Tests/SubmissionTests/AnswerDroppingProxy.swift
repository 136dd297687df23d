import ExposureCore
import ExposureTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A reverse proxy in front of verification's internal listener that passes every TAN verification on, and for the
/// first `dropping` of them throws verification's answer away and says 504, as a proxy does whose upstream answered
/// after its deadline. Verification has then handled the request (and spent the TAN); the caller cannot know.
final class AnswerDroppingProxy: @unchecked Sendable {
    static let name = "verification-proxy"
    static let teleTANType = HTTPField.Name("X-CWA-TELETAN-TYPE")!

    private let lock = NSLock()
    private var toDrop: Int
    private var passed = 0

    init(dropping: Int) {
        toDrop = dropping
    }

    /// How many verifications reached verification through the proxy, dropped answers included.
    var passedCount: Int { lock.withLock { passed } }

    func bundle(upstreamPort: Int) -> ServiceBundle {
        let router = TestServices.standInRouter(Self.name)
        let upstream = TestHTTPClient(port: upstreamPort)
        for path in ["/version/v1/tan/verify", "/version/v1/tans/verify"] {
            router.post(RouterPath(path)) { request, _ -> Response in
                let body = try await request.body.collect(upTo: 10_000)
                let answer = try await upstream.postRaw(path, Array(buffer: body))
                let drop = self.lock.withLock {
                    self.passed += 1
                    guard self.toDrop > 0 else { return false }
                    self.toDrop -= 1
                    return true
                }
                if drop { return Response(status: .gatewayTimeout) }
                var headers = HTTPFields()
                if let type = answer.header("X-CWA-TELETAN-TYPE") { headers[Self.teleTANType] = type }
                if let contentType = answer.header("Content-Type") { headers[.contentType] = contentType }
                return Response(
                    status: .init(code: answer.status), headers: headers,
                    body: .init(byteBuffer: ByteBuffer(bytes: answer.body))
                )
            }
        }
        return TestServices.standIn(Self.name, listener: "internal", router: router)
    }
}
