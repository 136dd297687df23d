import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification

/// Verification's internal listener answers only the services configured for it (`INTERNAL_API_TOKENS`).
@Suite struct InternalListenerTests {
    /// The attack: anyone who reached the internal listener could spend a phone's TAN, or mint teleTANs with any
    /// officer token and without the portal's audit log. Without a caller's token both are refused, and nothing is
    /// spent or stored.
    @Test(arguments: TestDatabase.all)
    func withoutAServiceTokenNothingIsSpentOrIssued(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let token = try await h.registeredToken(result: 2)
            let tan = try #require(try await h.tan(token).json["tan"] as? String)
            let bare = TestHTTPClient(port: h.internal.port)

            Covers.status(401, of: "POST /version/v1/tan/verify", try await bare.postJSON("/version/v1/tan/verify", ["tan": tan]), error: "unknown_caller")
            Covers.status(401, of: "POST /version/v1/tans/verify", try await bare.postJSON("/version/v1/tans/verify", ["tans": [tan]]), error: "unknown_caller")
            let officer = try await h.officerToken(roles: ["c19hotline"])
            let minted = try await bare.request(.POST, "/version/v1/tan/teletan", headers: [("Authorization", "Bearer \(officer)")])
            Covers.status(401, of: "POST /version/v1/tan/teletan", minted, error: "unknown_caller")
            let forged = try await bare.postJSON(
                "/version/v1/tan/verify", ["tan": tan], headers: [(ServiceTokens.header, TestServiceTokens.submission.uppercased())])
            forged.expectError(401, "unknown_caller")
            #expect(try await h.rows("teletans") == 0)
            #expect(try await h.rows("authority_signing_keys") == 0)

            // The TAN is still there for the phone's own submission, through a caller that presents its token.
            #expect(try await h.verify(tan).status == 200)
            #expect(try await h.verify(tan).status == 404)
        }
    }

    /// The services by the name the table knows them, and the tokens the tests' settings give them; the tests' own
    /// token and a statistics reader's stand for callers the table does not name.
    static let callers: [(name: String, token: String)] = [
        (CallerPermissions.Caller.submission, TestServiceTokens.submission), (CallerPermissions.Caller.portal, TestServiceTokens.portal),
        (CallerPermissions.Caller.verification, TestServiceTokens.verification), ("tests", TestServiceTokens.tests),
        ("statistics reader", TestServiceTokens.statisticsReader),
    ]

    /// The attack: the portal's token (the internet-facing officer application's, so the likeliest to leak) spent TANs
    /// (`/tans/reserve` answered 200) and drained the code buckets (`/codes/redeem` looked the code up); submission's
    /// could mint teleTANs. Now every caller reaches only its row of `CallerPermissions.verification`: every other
    /// route is a 403 `forbidden_caller` before its body is read, and nothing is reserved, spent or issued.
    @Test(arguments: TestDatabase.all)
    func everyCallerReachesOnlyTheRoutesItNeeds(kind: TestDatabase) async throws {
        // Every service's token configured, as an operator who shares one INTERNAL_API_TOKENS among the listeners does.
        try await VerificationHarness.run(on: kind, environment: ["INTERNAL_API_TOKENS": TestServiceTokens.internalAPITokens]) { h in
            let token = try await h.registeredToken(result: 2)
            let tan = try #require(try await h.tan(token).json["tan"] as? String)
            let code = try await h.newCode("COVIDSHIELD")
            let officer = try await h.officerToken(roles: ["c19hotline"])
            let sysadmin = try await h.officerToken(roles: ["c19hotline", OfficerRoles.systemAdministrator])
            let reservationKey = String(repeating: "ab", count: 16)
            // One real request per route and method: a valid one, so that an allowed caller would spend, reserve, issue
            // or change. `route` is the table's (a template), `path` what is sent.
            let authority: [String: Any] = ["name": "Changed", "regions": [], "families": ["cwa"], "disabled": false]
            let requests: [(route: String, method: String, path: String, body: [String: Any])] = [
                ("/version/v1/tan/verify", "POST", "/version/v1/tan/verify", ["tan": tan]),
                ("/version/v1/tans/verify", "POST", "/version/v1/tans/verify", ["tans": [tan]]),
                ("/version/v1/tans/reserve", "POST", "/version/v1/tans/reserve", ["tans": [tan], "reservationKeys": [reservationKey]]),
                ("/version/v1/tans/confirm", "POST", "/version/v1/tans/confirm", ["reservationKeys": [reservationKey]]),
                ("/version/v1/tans/release", "POST", "/version/v1/tans/release", ["reservationKeys": [reservationKey]]),
                ("/version/v1/tan/teletan", "POST", "/version/v1/tan/teletan", [:]),
                ("/version/v1/codes", "POST", "/version/v1/codes", ["kind": "COVIDSHIELD"]),
                ("/version/v1/codes/redeem", "POST", "/version/v1/codes/redeem", ["kind": "COVIDSHIELD", "code": code]),
                ("/version/v1/codes/issued", "GET", "/version/v1/codes/issued", [:]),
                ("/version/v1/codes/issued/expire", "POST", "/version/v1/codes/issued/expire", ["id": "7c2b8d5e-4f1a-4b3c-9d2e-1a2b3c4d5e6f"]),
                ("/version/v1/authorities", "GET", "/version/v1/authorities", [:]),
                ("/version/v1/authorities", "POST", "/version/v1/authorities", authority.merging(["id": "ha-new"]) { $1 }),
                ("/version/v1/authorities/{authorityId}", "GET", "/version/v1/authorities/default", [:]),
                ("/version/v1/authorities/{authorityId}", "PUT", "/version/v1/authorities/default", authority),
                ("/version/v1/issuers", "GET", "/version/v1/issuers", [:]),
                ("/version/v1/issuers", "POST", "/version/v1/issuers", ["name": "forbidden-key", "kind": "PROTEGO"]),
                ("/version/v1/issuers/{issuerName}", "DELETE", "/version/v1/issuers/gis-pl", [:]),
                ("/version/v1/signing-keys", "GET", "/version/v1/signing-keys", [:]),
                ("/version/v1/signing-keys", "POST", "/version/v1/signing-keys", [:]),
                ("/version/v1/signing-keys/{keyId}", "DELETE", "/version/v1/signing-keys/default-v1", [:]),
            ]
            #expect(Set(requests.map { $0.route }) == CallerPermissions.verification.paths)
            let bare = TestHTTPClient(port: h.internal.port)
            var forbidden: [TestResponse] = []
            for (name, callerToken) in Self.callers {
                for (route, method, path, body) in requests where !CallerPermissions.verification.allows(name, path: route) {
                    let headers = [(ServiceTokens.header, callerToken), ("Authorization", "Bearer \(sysadmin)"), ("Content-Type", "application/json")]
                    let bytes = method == "GET" ? nil : Array(try JSONSerialization.data(withJSONObject: body))
                    let answer = try await bare.request(
                        method == "GET" ? .GET : method == "PUT" ? .PUT : method == "DELETE" ? .DELETE : .POST, path, headers: headers,
                        body: method == "DELETE" ? nil : bytes
                    )
                    if name == "statistics reader" {
                        // Not a service of INTERNAL_API_TOKENS at all.
                        answer.expectError(401, "unknown_caller")
                    } else {
                        forbidden.append(answer)
                    }
                }
            }
            Covers.status(403, of: "POST /version/v1/tan/verify", among: forbidden, error: "forbidden_caller")
            Covers.status(403, of: "POST /version/v1/tans/verify", among: forbidden, error: "forbidden_caller")
            Covers.status(403, of: "POST /version/v1/tans/reserve", among: forbidden, error: "forbidden_caller")
            Covers.status(403, of: "POST /version/v1/tans/confirm", among: forbidden, error: "forbidden_caller")
            Covers.status(403, of: "POST /version/v1/tans/release", among: forbidden, error: "forbidden_caller")
            Covers.status(403, of: "POST /version/v1/tan/teletan", among: forbidden, error: "forbidden_caller")
            Covers.status(403, of: "POST /version/v1/codes", among: forbidden, error: "forbidden_caller")
            Covers.status(403, of: "POST /version/v1/codes/redeem", among: forbidden, error: "forbidden_caller")
            Covers.status(403, of: "GET /version/v1/codes/issued", among: forbidden, error: "forbidden_caller")
            Covers.status(403, of: "POST /version/v1/codes/issued/expire", among: forbidden, error: "forbidden_caller")
            Covers.status(403, of: "GET /version/v1/authorities", among: forbidden, error: "forbidden_caller")
            Covers.status(403, of: "POST /version/v1/authorities", among: forbidden, error: "forbidden_caller")
            Covers.status(403, of: "GET /version/v1/authorities/{authorityId}", among: forbidden, error: "forbidden_caller")
            Covers.status(403, of: "PUT /version/v1/authorities/{authorityId}", among: forbidden, error: "forbidden_caller")
            Covers.status(403, of: "GET /version/v1/issuers", among: forbidden, error: "forbidden_caller")
            Covers.status(403, of: "POST /version/v1/issuers", among: forbidden, error: "forbidden_caller")
            Covers.status(403, of: "DELETE /version/v1/issuers/{issuerName}", among: forbidden, error: "forbidden_caller")
            Covers.status(403, of: "GET /version/v1/signing-keys", among: forbidden, error: "forbidden_caller")
            Covers.status(403, of: "POST /version/v1/signing-keys", among: forbidden, error: "forbidden_caller")
            Covers.status(403, of: "DELETE /version/v1/signing-keys/{keyId}", among: forbidden, error: "forbidden_caller")
            // The portal, verification and the tests' token were refused on every submission route, submission and
            // the others on the portal's: nothing was issued, reserved, spent or changed.
            #expect(forbidden.count == 60)
            #expect(try await h.authorities(["list", "--json"]).contains(#""name":"Default health authority""#))
            #expect(try await h.rows("authorities") == 1)
            #expect(try await h.rows("teletans") == 0)
            #expect(try await h.rows("one_time_codes") == 1)
            #expect(try await h.redeemedTANs() == 0)
            // Another spelling of a route is judged as that route.
            let asPortalOnly = [(ServiceTokens.header, TestServiceTokens.portal)]
            let body = ["tans": [tan], "reservationKeys": [reservationKey]]
            for spelling in ["/version/v1/tans/reserve/", "//version/v1/tans/reserve", "/version/v1//tans/reserve", "/version/v1/tans/%72eserve", "/Version/v1/tans/reserve"] {
                let answer = try await bare.postJSON(spelling, body, headers: asPortalOnly)
                #expect(answer.status == 403, "\(spelling): \(answer.status)")
            }
            #expect(try await h.redeemedTANs() == 0)
            // Each route still answers the service that needs it: the TAN and the code are there for the phone.
            let asSubmission = [(ServiceTokens.header, TestServiceTokens.submission)]
            #expect(try await bare.postJSON("/version/v1/codes/redeem", ["kind": "COVIDSHIELD", "code": code], headers: asSubmission).status == 200)
            #expect(try await bare.postJSON("/version/v1/tan/verify", ["tan": tan], headers: asSubmission).status == 200)
            let asPortal = [(ServiceTokens.header, TestServiceTokens.portal), ("Authorization", "Bearer \(officer)")]
            #expect(try await bare.request(.POST, "/version/v1/tan/teletan", headers: asPortal).status == 201)
            #expect(try await bare.get("/version/v1/authorities/default", headers: asPortal).status == 200)
        }
    }
}
