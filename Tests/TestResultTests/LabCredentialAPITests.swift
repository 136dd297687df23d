import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import TestResult

/// The labs' credentials for the portal (issue #60, `/version/v1/lab-credentials` on the internal listener): a new
/// API key is answered once and works at once, a second key of one lab overlaps the first for a rotation, one
/// credential is revoked by its fingerprint and stops working while the other goes on, and the day of last use shows.
/// Only the portal's token reaches these routes, and it reaches nothing else.
@Suite struct LabCredentialAPITests {
    static let path = "/version/v1/lab-credentials"

    static func credentials(_ h: TestResultHarness) async throws -> [[String: Any]] {
        let listed = try await h.internal.get(path)
        try #require(listed.status == 200)
        return try #require(listed.json["credentials"] as? [[String: Any]])
    }

    static func fingerprint(of lab: String, in credentials: [[String: Any]], active: Bool = true) -> [String] {
        credentials.filter { $0["labId"] as? String == lab && ($0["revokedAt"] == nil) == active }.compactMap { $0["fingerprint"] as? String }
    }

    @Test(arguments: TestDatabase.all)
    func aKeyIsAnsweredOnceRotatesWithOverlapAndIsRevokedByItsFingerprint(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            let listed = try await h.internal.get(Self.path)
            Covers.status(200, of: "GET /version/v1/lab-credentials", listed)
            // The harness's lab has its key from the command line; it has not posted yet.
            let berlin = try #require((listed.json["credentials"] as? [[String: Any]])?.first)
            #expect(berlin["labId"] as? String == TestResultHarness.labID && berlin["kind"] as? String == "api_key" && berlin["lastUsedDay"] == nil)

            let first = try await h.internal.postJSON(Self.path, ["labId": "lab-hamburg"])
            Covers.status(201, of: "POST /version/v1/lab-credentials", first)
            let firstKey = try #require(first.json["apiKey"] as? String)
            let firstCredential = try #require(first.json["credential"] as? [String: Any])
            let firstPrint = try #require(firstCredential["fingerprint"] as? String)
            #expect(firstPrint == String(SecretHash.sha256Hex(firstKey).prefix(12)) && firstCredential["labId"] as? String == "lab-hamburg")
            #expect(try await h.post(results: [["id": TestResultHarness.guid(1), "result": 2]], key: firstKey).status == 204)

            // The list never holds a key, and now knows the day the key was used.
            let afterUse = try await h.internal.get(Self.path)
            #expect(!afterUse.text.contains(firstKey) && !afterUse.text.contains(h.labKey))
            let used = try #require((afterUse.json["credentials"] as? [[String: Any]])?.first { $0["fingerprint"] as? String == firstPrint })
            #expect(used["lastUsedDay"] as? String == "2025-06-15")

            // A rotation: a second key for the lab; both work until the first is revoked.
            let second = try await h.internal.postJSON(Self.path, ["labId": "lab-hamburg"])
            let secondKey = try #require(second.json["apiKey"] as? String)
            #expect(secondKey != firstKey)
            #expect(Self.fingerprint(of: "lab-hamburg", in: try await Self.credentials(h)).count == 2)
            let revoked = try await h.internal.request(.DELETE, "\(Self.path)/lab-hamburg/\(firstPrint)")
            Covers.status(204, of: "DELETE /version/v1/lab-credentials/{labId}/{fingerprint}", revoked)
            #expect(try await h.post(results: [["id": TestResultHarness.guid(2), "result": 1]], key: firstKey).status == 401)
            #expect(try await h.post(results: [["id": TestResultHarness.guid(2), "result": 1]], key: secondKey).status == 204)
            let after = try await Self.credentials(h)
            #expect(Self.fingerprint(of: "lab-hamburg", in: after, active: false) == [firstPrint])
            #expect(Self.fingerprint(of: "lab-hamburg", in: after).count == 1)

            // Revoked already, another lab's, or one that was never: nothing to revoke.
            let again = try await h.internal.request(.DELETE, "\(Self.path)/lab-hamburg/\(firstPrint)")
            Covers.status(404, of: "DELETE /version/v1/lab-credentials/{labId}/{fingerprint}", again, error: "unknown_credential")
            let secondPrint = try #require(Self.fingerprint(of: "lab-hamburg", in: after).first)
            try await h.internal.request(.DELETE, "\(Self.path)/\(TestResultHarness.labID)/\(secondPrint)").expectError(404, "unknown_credential")
            #expect(try await h.post(results: [["id": TestResultHarness.guid(3), "result": 1]], key: secondKey).status == 204)
        }
    }

    @Test(arguments: TestDatabase.all)
    func badRequestsAreRefusedAndChangeNothing(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            for labID in ["", "has space", String(repeating: "a", count: 65), "lab/1"] {
                let refused = try await h.internal.postJSON(Self.path, ["labId": labID])
                Covers.status(400, of: "POST /version/v1/lab-credentials", refused, error: "invalid_lab_id")
            }
            try await h.internal.postJSON(Self.path, ["labId": "lab-1", "extra": true]).expectError(400, "malformed_body")
            let form = try await h.internal.postRaw(Self.path, Array("labId=lab-1".utf8), contentType: "application/x-www-form-urlencoded")
            Covers.status(415, of: "POST /version/v1/lab-credentials", form, error: "unsupported_media_type")
            let padded = try await h.internal.postRaw(Self.path, Array(#"{"labId":"lab-1","pad":"\#(String(repeating: "x", count: 20_000))"}"#.utf8))
            Covers.status(413, of: "POST /version/v1/lab-credentials", padded, error: "payload_too_large")
            for (lab, print) in [(TestResultHarness.labID, "XYZ"), (TestResultHarness.labID, "ABCDEF012345"), (TestResultHarness.labID, "abcdef01234"), ("has%20space", "abcdef012345")] {
                let refused = try await h.internal.request(.DELETE, "\(Self.path)/\(lab)/\(print)")
                Covers.status(400, of: "DELETE /version/v1/lab-credentials/{labId}/{fingerprint}", refused)
            }
            #expect(try await Self.credentials(h).count == 1)
            #expect(try await h.post(results: [["id": TestResultHarness.guid(1), "result": 1]]).status == 204)
        }
    }

    /// The attack: another service's token (verification's, submission's) creating a lab key or listing the labs, and
    /// the portal's token reading results. Each is a 403 before anything is read; without a token, a 401.
    @Test(arguments: TestDatabase.all)
    func onlyThePortalReachesTheLabsCredentialsAndNothingElse(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind, environment: ["INTERNAL_API_TOKENS": TestServiceTokens.internalAPITokens]) { h in
            let bare = TestHTTPClient(port: h.internal.port)
            var forbidden: [TestResponse] = []
            for token in [TestServiceTokens.verification, TestServiceTokens.submission, TestServiceTokens.tests] {
                let headers = [(ServiceTokens.header, token)]
                forbidden.append(try await bare.get(Self.path, headers: headers))
                forbidden.append(try await bare.postJSON(Self.path, ["labId": "rogue"], headers: headers))
                forbidden.append(try await bare.request(.DELETE, "\(Self.path)/\(TestResultHarness.labID)/abcdef012345", headers: headers))
            }
            Covers.status(403, of: "GET /version/v1/lab-credentials", among: forbidden, error: "forbidden_caller")
            Covers.status(403, of: "POST /version/v1/lab-credentials", among: forbidden, error: "forbidden_caller")
            Covers.status(403, of: "DELETE /version/v1/lab-credentials/{labId}/{fingerprint}", among: forbidden, error: "forbidden_caller")
            let anonymous = [try await bare.get(Self.path), try await bare.postJSON(Self.path, ["labId": "rogue"]),
                             try await bare.request(.DELETE, "\(Self.path)/\(TestResultHarness.labID)/abcdef012345")]
            Covers.status(401, of: "GET /version/v1/lab-credentials", among: anonymous, error: "unknown_caller")
            Covers.status(401, of: "POST /version/v1/lab-credentials", among: anonymous, error: "unknown_caller")
            Covers.status(401, of: "DELETE /version/v1/lab-credentials/{labId}/{fingerprint}", among: anonymous, error: "unknown_caller")
            let asPortal = [(ServiceTokens.header, TestServiceTokens.portalToTestResult)]
            try await bare.postJSON("/api/v1/app/result", ["id": TestResultHarness.guid(1)], headers: asPortal).expectError(403, "forbidden_caller")
            // Nothing was made; and the routes are not on the labs' listener at all.
            #expect(try await Self.credentials(h).count == 1)
            #expect(try await h.lab.get(Self.path, headers: [("Authorization", "Bearer \(h.labKey)")]).status == 404)
        }
    }

    @Test(arguments: [TestDatabase.sqlite])
    func credentialsThatCannotBeReadAreAServerError(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            try await FailureInjection.withoutTable("lab_credentials", in: h.database) {
                Covers.status(500, of: "GET /version/v1/lab-credentials", try await h.internal.get(Self.path), error: "internal_error")
                Covers.status(500, of: "POST /version/v1/lab-credentials", try await h.internal.postJSON(Self.path, ["labId": "lab-1"]), error: "internal_error")
                Covers.status(500, of: "DELETE /version/v1/lab-credentials/{labId}/{fingerprint}",
                              try await h.internal.request(.DELETE, "\(Self.path)/lab-1/abcdef012345"), error: "internal_error")
            }
            #expect(try await Self.credentials(h).count == 1)
        }
    }
}
