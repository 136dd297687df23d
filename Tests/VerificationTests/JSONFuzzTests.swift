import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification

/// Random JSON to every verification endpoint: never a crash or a 5xx, always a 4xx with a JSON error, and
/// nothing stored. Byte-level mutations of valid requests may still be valid; those must succeed cleanly.
/// `FUZZ_SEED=<n>` replays a run.
@Suite struct JSONFuzzTests {
    static func fuzzer(seed: UInt64) -> JSONFuzz {
        JSONFuzz(
            ByteMutator(defaultSeed: seed),
            words: ["GUID", "TELETAN", "guid", "R3ZNUEV9JA"],
            fieldNames: ["key", "keyType", "keyDob", "registrationToken", "tan", "tans", "redemptionKey"]
        )
    }

    @Test(arguments: TestDatabase.all)
    func randomJSONIsRefusedWithoutASideEffect(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let fuzz = Self.fuzzer(seed: 424_242)
            // Valid requests to twist: a registered GUID, its token and TAN, and a teleTAN.
            let guid = VerificationHarness.hashedGUID()
            try await h.labPosts(guid, result: 2)
            let token = try #require(try await h.register(guid: guid).json["registrationToken"] as? String)
            let tan = try #require(try await h.tan(token).json["tan"] as? String)
            let teleTAN = try await h.newTeleTAN()
            let endpoints: [(client: TestHTTPClient, path: String, template: [String: Any])] = [
                (h.app, "/version/v1/registrationToken", ["key": guid, "keyType": "GUID", "keyDob": VerificationHarness.hashedGUID()]),
                (h.app, "/version/v1/registrationToken", ["key": teleTAN, "keyType": "TELETAN"]),
                (h.app, "/version/v1/testresult", ["registrationToken": token]),
                (h.app, "/version/v1/tan", ["registrationToken": token]),
                (h.internal, "/version/v1/tan/verify", ["tan": tan]),
                (h.internal, "/version/v1/tans/verify", ["tans": [tan]]),
            ]
            func state() async throws -> [Int] {
                [try await h.rows("app_sessions"), try await h.rows("used_keys"), try await h.rows("tans"), try await h.rows("teletans")]
            }
            let before = try await state()
            var statuses: [Int: Int] = [:]
            for round in 0..<600 {
                let endpoint = endpoints[round % endpoints.count]
                let body = JSONFuzz.encode(round % 2 == 0 ? fuzz.randomValue() : fuzz.twisted(endpoint.template))
                let response = try await endpoint.client.postRaw(endpoint.path, body, headers: [("cwa-fake", "0")])
                statuses[response.status, default: 0] += 1
                #expect((400..<500).contains(response.status), "\(endpoint.path) \(String(decoding: body, as: UTF8.self).prefix(200)): \(response.status) \(response.text)")
                #expect(response.json["error"] is String, "\(endpoint.path): \(response.text)")
            }
            let after = try await state()
            #expect(after == before, "rows changed: \(before) → \(after)")
            print("JSON fuzzing of verification (\(kind)): \(statuses.sorted { $0.key < $1.key })")
            // The teleTAN and the TAN are still unused: a refused request spends nothing.
            let verified = try await h.verify(tan)
            #expect(verified.status == 200)
            let registered = try await h.register(teleTAN: teleTAN)
            #expect(registered.status == 201)
        }
    }

    @Test(arguments: TestDatabase.all)
    func mutatedRequestsAreRefusedOrHandledCleanly(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let fuzz = ByteMutator(defaultSeed: 99)
            let guid = VerificationHarness.hashedGUID()
            try await h.labPosts(guid, result: 2)
            let token = try #require(try await h.register(guid: guid).json["registrationToken"] as? String)
            let requests: [(client: TestHTTPClient, path: String, body: [UInt8])] = [
                (h.app, "/version/v1/registrationToken", JSONFuzz.encode(["key": VerificationHarness.hashedGUID(), "keyType": "GUID"])),
                (h.app, "/version/v1/testresult", JSONFuzz.encode(["registrationToken": token])),
                (h.app, "/version/v1/tan", JSONFuzz.encode(["registrationToken": VerificationHarness.hashedGUID()])),
                (h.internal, "/version/v1/tan/verify", JSONFuzz.encode(["tan": Codes.uuidV4(using: SystemRandomSource())])),
                (h.internal, "/version/v1/tans/verify", JSONFuzz.encode(["tans": [Codes.uuidV4(using: SystemRandomSource())]])),
            ]
            var statuses: [Int: Int] = [:]
            for round in 0..<400 {
                let request = requests[round % requests.count]
                let body = fuzz.mutate(request.body)
                let sessionsBefore = try await h.rows("app_sessions")
                let response = try await request.client.postRaw(request.path, body, headers: [("cwa-fake", "0")])
                statuses[response.status, default: 0] += 1
                let sessionsAfter = try await h.rows("app_sessions")
                switch response.status {
                case 200, 201:
                    // Still a valid request: a registration of some other GUID, or the poll of the token.
                    #expect(sessionsAfter - sessionsBefore == (request.path.hasSuffix("registrationToken") ? 1 : 0))
                case 400..<500:
                    #expect(sessionsAfter == sessionsBefore, "\(request.path)")
                    #expect(response.json["error"] is String, "\(request.path): \(response.text)")
                default:
                    Issue.record("\(request.path) \(String(decoding: body, as: UTF8.self).prefix(200)): \(response.status) \(response.text)")
                }
            }
            #expect(statuses.filter { (400..<500).contains($0.key) }.values.reduce(0, +) > 300, "\(statuses)")
            print("mutated JSON to verification (\(kind)): \(statuses.sorted { $0.key < $1.key })")
        }
    }
}
