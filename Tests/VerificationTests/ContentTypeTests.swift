import ExposureTestSupport
import Foundation
import Testing

/// Verification reads JSON bodies only: a body sent as anything else is refused with 415 and a JSON error, before
/// any of it is read, and nothing is registered or spent.
@Suite struct ContentTypeTests {
    @Test(arguments: TestDatabase.all)
    func bodiesThatAreNotJSONAre415(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let guid = VerificationHarness.hashedGUID()
            let token = try await h.registeredToken(result: 2)
            let tan = try #require(try await h.tan(token).json["tan"] as? String)
            let requests: [(TestHTTPClient, String, [String: Any])] = [
                (h.app, "/version/v1/registrationToken", ["key": guid, "keyType": "GUID"]),
                (h.app, "/version/v1/testresult", ["registrationToken": token]),
                (h.app, "/version/v1/tan", ["registrationToken": token]),
                (h.internal, "/version/v1/tan/verify", ["tan": tan]),
                (h.internal, "/version/v1/tans/verify", ["tans": [tan]]),
            ]
            var refused: [TestResponse] = []
            for (client, path, body) in requests {
                let json = try JSONSerialization.data(withJSONObject: body)
                for contentType in ["text/plain", "application/x-www-form-urlencoded", "application/xml"] {
                    let response = try await client.postRaw(path, Array(json), headers: [("cwa-fake", "0")], contentType: contentType)
                    refused.append(response)
                }
            }
            Covers.status(415, of: "POST /version/v1/registrationToken", among: refused, error: "unsupported_media_type")
            Covers.status(415, of: "POST /version/v1/testresult", among: refused, error: "unsupported_media_type")
            Covers.status(415, of: "POST /version/v1/tan", among: refused, error: "unsupported_media_type")
            Covers.status(415, of: "POST /version/v1/tan/verify", among: refused, error: "unsupported_media_type")
            Covers.status(415, of: "POST /version/v1/tans/verify", among: refused, error: "unsupported_media_type")
            // The GUID is still free and the TAN unspent.
            #expect(try await h.register(guid: guid).status == 201)
            #expect(try await h.verify(tan).status == 200)
        }
    }
}
