import ExposureCore
import ExposureTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A stand-in for the verification service's internal `POST /version/v1/tan/verify` and its batch form
/// `POST /version/v1/tans/verify`, served over real HTTP through the core's listener: known TANs are consumed once
/// (200, with `X-CWA-TELETAN-TYPE` when they came from a teleTAN), anything else is 404 (a verdict of false in a
/// batch). It counts the calls it gets, and can fail or stall on demand. Made with `batchPath: false` it stands for
/// a verification service that predates the batch form and answers 404 there.
///
/// Its semantics are those of `openapi/verification.yaml`, except that it ignores redemption keys (no repeats). Tests
/// that need failures on demand use it; `RealVerificationStack` wires submission to the real verification service.
final class VerificationStandIn: @unchecked Sendable {
    static let name = "verification-stand-in"
    static let teleTANType = HTTPField.Name("X-CWA-TELETAN-TYPE")!

    private let lock = NSLock()
    /// TAN → teleTAN type (nil for a TAN from a test result).
    private var tans: [String: String?] = [:]
    private var calls = 0
    private var failures: [HTTPResponse.Status] = []
    private var stall: Duration = .zero
    private var batchCalls = 0
    private var bodies: [String] = []
    private let batchPath: Bool
    private var repeatsAccepted = false

    init(batchPath: Bool = true) {
        self.batchPath = batchPath
    }

    /// A new TAN that verification will accept once.
    func issue(teleTANType: String? = nil) -> String {
        let tan = Codes.uuidV4(using: SystemRandomSource())
        lock.withLock { tans[tan] = .some(teleTANType) }
        return tan
    }

    /// How many verification requests arrived (a batch is one).
    var callCount: Int { lock.withLock { calls } }

    /// How many of them were for the batch path (answered 404 without `batchPath`).
    var batchCallCount: Int { lock.withLock { batchCalls } }

    /// The bodies of the requests that arrived, in order, as text.
    var requestBodies: [String] { lock.withLock { bodies } }

    /// From now on a TAN stays valid after its use, as verification answers a repeat of the same redemption
    /// (same TAN, same keys) within the hour.
    func acceptRepeats() { lock.withLock { repeatsAccepted = true } }

    /// The TAN's teleTAN type when it is valid (nil inside for a test's TAN), consuming it unless repeats are accepted.
    private func take(_ tan: String) -> String?? {
        repeatsAccepted ? tans[tan] : tans.removeValue(forKey: tan)
    }

    /// The next requests are answered with these statuses (without touching any TAN).
    func failNext(_ statuses: [HTTPResponse.Status]) { lock.withLock { failures = statuses } }

    /// Every request waits this long before it is answered.
    func stall(for duration: Duration) { lock.withLock { stall = duration } }

    func bundle() -> ServiceBundle {
        let router = TestServices.standInRouter(Self.name)
        router.post("/version/v1/tan/verify") { request, _ -> Response in
            struct Body: Decodable { let tan: String }
            let data = try await request.body.collect(upTo: 10_000)
            self.record(data)
            let tan = try JSONDecoder().decode(Body.self, from: Data(buffer: data)).tan
            let (delay, answer) = self.answer(tan)
            try await Task.sleep(for: delay)
            return answer
        }
        router.post("/version/v1/tans/verify") { request, _ -> Response in
            struct Body: Decodable { let tans: [String] }
            let data = try await request.body.collect(upTo: 10_000)
            self.record(data)
            let tans = try JSONDecoder().decode(Body.self, from: Data(buffer: data)).tans
            let (delay, answer) = self.answer(batch: tans)
            try await Task.sleep(for: delay)
            return answer
        }
        return TestServices.standIn(Self.name, listener: "internal", router: router)
    }

    private func record(_ body: ByteBuffer) {
        lock.withLock { bodies.append(String(buffer: body)) }
    }

    private func answer(batch: [String]) -> (Duration, Response) {
        lock.withLock {
            batchCalls += 1
            guard batchPath else { return (.zero, Response(status: .notFound)) }
            calls += 1
            if !failures.isEmpty {
                return (stall, Response(status: failures.removeFirst()))
            }
            let verdicts = batch.map { tan -> String in
                guard let type = take(tan) else { return #"{"valid":false}"# }
                return type.map { #"{"valid":true,"teleTanType":"\#($0)"}"# } ?? #"{"valid":true}"#
            }
            let body = ByteBuffer(string: #"{"verdicts":["# + verdicts.joined(separator: ",") + "]}")
            return (stall, Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: body)))
        }
    }

    private func answer(_ tan: String) -> (Duration, Response) {
        lock.withLock {
            calls += 1
            if !failures.isEmpty {
                return (stall, Response(status: failures.removeFirst()))
            }
            guard let type = take(tan) else {
                let body = ByteBuffer(string: #"{"error":"tan_not_found","message":"Unknown, expired or used TAN."}"#)
                return (stall, Response(status: .notFound, headers: [.contentType: "application/json"], body: .init(byteBuffer: body)))
            }
            var headers = HTTPFields()
            if let type { headers[Self.teleTANType] = type }
            return (stall, Response(status: .ok, headers: headers))
        }
    }
}
