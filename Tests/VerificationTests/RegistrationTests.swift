import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification
@testable import VerificationDomain

@Suite struct RegistrationTests {
    @Test(arguments: TestDatabase.all)
    func aGUIDRegistersOnceEver(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let guid = VerificationHarness.hashedGUID()
            let first = try await h.register(guid: guid)
            Covers.status(201, of: "POST /version/v1/registrationToken", first)
            let token = try #require(first.json["registrationToken"] as? String)
            #expect(Codes.isUUIDv4(token))
            #expect(first.body.count == ResponseSizes.registrationToken)
            let again = try await h.register(guid: guid)
            Covers.status(400, of: "POST /version/v1/registrationToken", again, error: "already_registered")
            // Upper-case hex is the same GUID.
            try #require(try await h.register(guid: guid.uppercased()).status == 400)
            // Only hashes are stored: the token itself appears nowhere.
            let stored = try await h.database.withConnection { connection in
                try await connection.raw("SELECT registration_token_hash FROM app_sessions").all().map { try $0.decode(column: "registration_token_hash", as: String.self) }
            }
            #expect(stored == [SecretHash.sha256Hex(token)])
        }
    }

    @Test(arguments: TestDatabase.all)
    func aDateOfBirthHashIsAlsoUsedOnce(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let dob = "x" + VerificationHarness.hashedGUID().dropFirst()
            try #require(try await h.register(guid: VerificationHarness.hashedGUID(), dob: dob).status == 201)
            try #require(try await h.register(guid: VerificationHarness.hashedGUID(), dob: dob).status == 400)
            // The refused registration left no trace of its GUID either.
            try #require(try await h.rows("app_sessions") == 1)
            try #require(try await h.rows("used_keys") == 2)
        }
    }

    @Test(arguments: TestDatabase.all)
    func malformedRegistrationsAre400(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let guid = VerificationHarness.hashedGUID()
            let cases: [[String: Any]] = [
                ["key": String(guid.dropLast()), "keyType": "GUID"],
                ["key": "z" + guid.dropFirst(), "keyType": "GUID"],
                ["key": "x" + guid.dropFirst(), "keyType": "GUID"],
                ["key": guid, "keyType": "GUID", "keyDob": "short"],
                ["key": guid, "keyType": "QR"],
                ["key": guid],
                ["keyType": "GUID"],
                ["key": "FE9A5MAK6D", "keyType": "TELETAN"],
                ["key": "FE9A5MAK6C", "keyType": "TELETAN", "keyDob": guid],
                ["key": 5, "keyType": "GUID"],
            ]
            for body in cases {
                let response = try await h.app.postJSON("/version/v1/registrationToken", body, headers: [("cwa-fake", "0")])
                #expect(response.status == 400, "\(body)")
                #expect(response.json["error"] != nil)
            }
            for raw in ["{", "[]", "null", ""] {
                let response = try await h.app.postRaw("/version/v1/registrationToken", Array(raw.utf8), headers: [("cwa-fake", "0")])
                #expect(response.status == 400, "\(raw)")
            }
            try #require(try await h.rows("app_sessions") == 0)
        }
    }

    @Test(arguments: TestDatabase.all)
    func theFakeHeaderIsRequired(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let body = ["key": VerificationHarness.hashedGUID(), "keyType": "GUID"]
            try #require(try await h.app.postJSON("/version/v1/registrationToken", body).status == 400)
            try #require(try await h.app.postJSON("/version/v1/registrationToken", body, headers: [("cwa-fake", "2")]).status == 400)
            try #require(try await h.app.postJSON("/version/v1/testresult", ["registrationToken": "x"]).status == 400)
            try #require(try await h.app.postJSON("/version/v1/tan", ["registrationToken": "x"], headers: [("cwa-fake", "yes")]).status == 400)
        }
    }

    @Test(arguments: TestDatabase.all)
    func largeOrChunkedBodiesAre406(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let padding = String(repeating: "a", count: 10_001)
            let large = try await h.app.postJSON("/version/v1/registrationToken", ["key": padding, "keyType": "GUID"], headers: [("cwa-fake", "0")])
            Covers.status(406, of: "POST /version/v1/registrationToken", large, error: "not_acceptable")
            let chunked = try await h.app.postChunked("/version/v1/registrationToken", Array("{\"key\":\"a\",\"keyType\":\"GUID\"}".utf8), headers: [("cwa-fake", "0")])
            #expect(chunked.status == 406)
            let internalLarge = try await h.internal.postJSON("/version/v1/tan/verify", ["tan": padding])
            Covers.status(406, of: "POST /version/v1/tan/verify", internalLarge, error: "not_acceptable")
            // Nothing was registered.
            #expect(try await h.rows("app_sessions") == 0)
        }
    }

    /// Every app-facing and internal endpoint of the contract answers a body over 10,000 bytes, or one sent without a
    /// length, with 406 and its JSON error, before it reads the body, and changes nothing.
    @Test(arguments: TestDatabase.all)
    func everyEndpointAnswersLargeOrChunkedBodies406(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let token = try await h.registeredToken(result: 2)
            let padding = String(repeating: "a", count: 10_001)
            let app: [(String, [String: String])] = [
                ("/version/v1/testresult", ["registrationToken": token, "padding": padding]),
                ("/version/v1/tan", ["registrationToken": token, "padding": padding]),
            ]
            var refused: [TestResponse] = []
            for (path, body) in app {
                refused.append(try await h.app.postJSON(path, body, headers: [("cwa-fake", "0")]))
                let small = try JSONSerialization.data(withJSONObject: ["registrationToken": token])
                refused.append(try await h.app.postChunked(path, Array(small), headers: [("cwa-fake", "0")]))
            }
            let batch = ["tans": [Codes.uuidV4(using: SystemRandomSource())], "padding": [padding]]
            refused.append(try await h.internal.postJSON("/version/v1/tans/verify", batch))
            let smallBatch = try JSONSerialization.data(withJSONObject: ["tans": [Codes.uuidV4(using: SystemRandomSource())]])
            refused.append(try await h.internal.postChunked("/version/v1/tans/verify", Array(smallBatch)))
            Covers.status(406, of: "POST /version/v1/testresult", among: refused, error: "not_acceptable")
            Covers.status(406, of: "POST /version/v1/tan", among: refused, error: "not_acceptable")
            Covers.status(406, of: "POST /version/v1/tans/verify", among: refused, error: "not_acceptable")
            // Nothing was read as a request: the token still has no TAN, and gets one now.
            #expect(try await h.rows("tans") == 0)
            #expect(try await h.tan(token).status == 201)
        }
    }

    @Test(arguments: TestDatabase.all)
    func fiftyConcurrentRegistrationsOfOneGUIDHaveOneWinner(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let guid = VerificationHarness.hashedGUID()
            let statuses = try await h.race { try await $0.register(guid: guid).status }
            #expect(statuses.filter { $0 == 201 }.count == 1)
            #expect(statuses.filter { $0 == 400 }.count == 49)
            // Exactly once in the database too: one session, one used key.
            #expect(try await h.rows("app_sessions") == 1)
            #expect(try await h.rows("used_keys") == 1)
        }
    }

    @Test(arguments: TestDatabase.all)
    func pathsLiveOnTheirOwnListener(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            try #require(try await h.app.postJSON("/version/v1/tan/verify", ["tan": Codes.uuidV4(using: SystemRandomSource())]).status == 404)
            try #require(try await h.app.request(.POST, "/version/v1/tan/teletan").status == 404)
            let onInternal = try await h.internal.postJSON(
                "/version/v1/registrationToken", ["key": VerificationHarness.hashedGUID(), "keyType": "GUID"], headers: [("cwa-fake", "0")]
            )
            #expect(onInternal.status == 404)
            // Operators' endpoints are on the management listener only.
            for client in [h.app, h.internal] {
                #expect(try await client.get("/health/ready").status == 404)
                #expect(try await client.get("/metrics").status == 404)
            }
            #expect(try await h.management.get("/health/ready").status == 200)
            #expect(try await h.management.get("/metrics").status == 200)
        }
    }
}
