import ExposureCore
import ExposureTestSupport
import Foundation
import Testing

@testable import Submission
@testable import SubmissionCore

/// The LEMON API of a running submission service (`SubmissionHarness` with the family on).
struct LemonHarness: Sendable {
    let base: SubmissionHarness

    var client: TestHTTPClient { base.client }
    var clock: ManualClock { base.clock }

    static func run(_ kind: TestDatabase, settings: [String: String] = [:], _ body: (LemonHarness) async throws -> Void) async throws {
        try await SubmissionHarness.run(kind, environment: LemonTestKeys.settings.merging(settings) { $1 }) { base in
            try await body(LemonHarness(base: base))
        }
    }

    func devices(_ body: [String: Any]) async throws -> TestResponse {
        try await client.postJSON("/api/v1/devices", body)
    }

    /// Registers `device` and returns its access token.
    func token(_ device: LemonTestDevice) async throws -> String {
        let answer = try await devices(device.registration(now: clock.now()))
        #expect(answer.status == 201, "registration: \(answer.text)")
        return try #require((answer.json["data"] as? [String: Any])?["accessToken"] as? String)
    }

    /// The device's id: its access token's subject.
    static func deviceID(ofToken token: String) throws -> String {
        var payload = String(token.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while payload.count % 4 != 0 { payload += "=" }
        let payloadBytes = try #require(Data(base64Encoded: payload))
        let claims = try #require(try JSONSerialization.jsonObject(with: payloadBytes) as? [String: Any])
        return try #require(claims["sub"] as? String)
    }

    func send(_ method: String, _ path: String, token: String?, json: Any? = nil) async throws -> TestResponse {
        var headers: [(String, String)] = []
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        var body: [UInt8]?
        if let json {
            body = Array(try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys, .fragmentsAllowed]))
            headers.append(("Content-Type", "application/json"))
        }
        return try await client.request(.init(rawValue: method), path, headers: headers, body: body)
    }
}

extension TestResponse {
    /// The seed's envelope: `data` present, `meta.success` as the status says, `meta.code` the status, a message key.
    func expectEnvelope(_ status: Int, pascalCase: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) {
        let (data, meta, success, code, message) = pascalCase
            ? ("Data", "Meta", "Success", "Code", "Message") : ("data", "meta", "success", "code", "message")
        #expect(self.status == status, "\(request): \(text)", sourceLocation: sourceLocation)
        #expect(json.keys.contains(data), "\(request): no \(data) in \(text)", sourceLocation: sourceLocation)
        let inner = json[meta] as? [String: Any] ?? [:]
        #expect(inner[code] as? Int == status, "\(request): \(text)", sourceLocation: sourceLocation)
        #expect(inner[success] as? Bool == (status < 400), "\(request): \(text)", sourceLocation: sourceLocation)
        #expect(inner.keys.contains(message), "\(request): no \(message) in \(text)", sourceLocation: sourceLocation)
        if status >= 400 { #expect(json[data] is NSNull, sourceLocation: sourceLocation) }
    }

    var lemonData: [String: Any] { json["data"] as? [String: Any] ?? [:] }
    var lemonList: [[String: Any]] { json["data"] as? [[String: Any]] ?? [] }
}
