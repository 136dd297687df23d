import Crypto
import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification
@testable import VerificationDomain
@testable import VerificationENX

/// The ENX family as its callers use it: a health authority's system with an admin key on the issuer listener, and
/// phones with the authority's device key on the app listener (openapi/enx.yaml).
struct ENXHarness {
    let h: VerificationHarness
    let admin: String
    let device: String

    static let issue = "/api/issue"
    static let batchIssue = "/api/batch-issue"
    static let checkCodeStatus = "/api/checkcodestatus"
    static let expireCode = "/api/expirecode"
    static let verify = "/api/verify"
    static let certificate = "/api/certificate"

    /// The harness's verification with an admin and a device key of the default authority.
    static func run(on kind: TestDatabase, environment: [String: String] = [:], _ body: (ENXHarness) async throws -> Void) async throws {
        try await VerificationHarness.run(on: kind, environment: environment) { h in
            try await body(ENXHarness(h: h, admin: try await h.enxKey("admin", name: "ha-system"), device: try await h.enxKey("device", name: "enx-app")))
        }
    }

    var now: Int64 { h.clock.now().epochSeconds }

    /// A day `days` before today (UTC), as `YYYY-MM-DD`.
    func day(_ days: Int64) -> String { UTCDay(containing: now).adding(days: -days).description }

    func call(_ client: TestHTTPClient, _ path: String, _ body: [String: Any], key: String?, headers: [(String, String)] = []) async throws -> TestResponse {
        try await client.postJSON(path, body, headers: (key.map { [("X-API-Key", $0)] } ?? []) + [("Accept", "application/json")] + headers)
    }

    func issue(_ body: [String: Any], key: String? = nil) async throws -> TestResponse {
        try await call(h.issuer, Self.issue, body, key: key ?? admin)
    }

    /// A new code of `type`; its answer's `code` and `uuid`.
    func newCode(_ type: String = "confirmed", symptomDaysAgo: Int64? = 2, testDaysAgo: Int64? = nil, key: String? = nil) async throws -> (code: String, uuid: String) {
        var body: [String: Any] = ["testType": type]
        if let symptomDaysAgo { body["symptomDate"] = day(symptomDaysAgo) }
        if let testDaysAgo { body["testDate"] = day(testDaysAgo) }
        let answer = try await issue(body, key: key)
        #expect(answer.status == 200, "\(answer.text)")
        return (try #require(answer.json["code"] as? String), try #require(answer.json["uuid"] as? String))
    }

    func verify(_ code: String, accept: [String]? = nil, key: String? = nil, headers: [(String, String)] = []) async throws -> TestResponse {
        var body: [String: Any] = ["code": code]
        if let accept { body["accept"] = accept }
        return try await call(h.app, Self.verify, body, key: key ?? device, headers: headers)
    }

    /// A verified code's token.
    func token(for code: String) async throws -> String {
        let answer = try await verify(code)
        #expect(answer.status == 200, "\(answer.text)")
        return try #require(answer.json["token"] as? String)
    }

    func certificate(_ token: String, hmac: String = ENXHarness.hmac, key: String? = nil) async throws -> TestResponse {
        try await call(h.app, Self.certificate, ["token": token, "ekeyhmac": hmac], key: key ?? device)
    }

    func status(_ uuid: String, key: String? = nil) async throws -> TestResponse {
        try await call(h.issuer, Self.checkCodeStatus, ["uuid": uuid], key: key ?? admin)
    }

    func expire(_ uuid: String, key: String? = nil) async throws -> TestResponse {
        try await call(h.issuer, Self.expireCode, ["uuid": uuid], key: key ?? admin)
    }

    /// The fact sheet's vector A: the HMAC of its three keys (docs/enx.md, 3.1).
    static let hmac = "2lxvM/UE5KsqGv6Ohp+EUqQilV0Qt93qrHfzTCmYu7Q="

    /// The JSON of a JWT's segment `index` (0 header, 1 claims).
    static func segment(_ jwt: String, _ index: Int) throws -> [String: Any] {
        let part = String(jwt.split(separator: ".", omittingEmptySubsequences: false)[index])
        let data = try #require(Data(base64URL: part))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// `padding` is base64 of 1,024 to 2,047 bytes.
    static func expectPadding(_ answer: TestResponse, sourceLocation: SourceLocation = #_sourceLocation) {
        let bytes = (answer.json["padding"] as? String).flatMap { Data(base64Encoded: $0) }
        #expect(bytes.map { (1024...2047).contains($0.count) } == true, "padding of \(answer.text.prefix(80))", sourceLocation: sourceLocation)
    }
}

extension VerificationHarness {
    /// `verification-service enx-keys …` against this verification's database, as an operator runs it.
    func enxKeys(_ words: [String]) async throws -> String {
        let configuration = try VerificationConfiguration(TestServices.settings(variables))
        return try await VerificationAdmin.enxKeys(words, configuration: configuration, environment: TestServices.environment(clock: clock, seed: UInt64.random(in: 0...UInt64.max)))
    }

    /// A new ENX key of `role` and its secret (the output's last line).
    func enxKey(_ role: String, name: String, authority: String = "default") async throws -> String {
        let output = try await enxKeys(["add", "--name", name, "--role", role, "--authority", authority])
        return String(try #require(output.split(separator: "\n").last))
    }
}
