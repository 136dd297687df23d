import ExposureCore
import ExposureTestSupport
import Testing
@testable import Verification

/// Issue #64: a health authority that serves CWA apps only turns the other families off (`COVIDSHIELD_ENABLED`,
/// `PROTEGO_ENABLED`, default off). Verification then has no issuer endpoint of theirs (404, for every method, not the
/// family's own 405 or 400) and issues no code of their kinds to the portal, even for an issuer token or an officer
/// that would be good.
@Suite struct FamilySwitchTests {
    @Test(arguments: TestDatabase.all)
    func aDisabledFamilysIssuerEndpointsAndCodesAreNotThere(kind: TestDatabase) async throws {
        let off = ["COVIDSHIELD_ENABLED": "false", "PROTEGO_ENABLED": "false"]
        try await VerificationHarness.run(on: kind, environment: off) { h in
            let covidShield = try await h.addIssuer("ontario-ha", kind: "covidshield")
            let protego = try await h.addIssuer("gis-pl", kind: "protego")
            #expect(try await h.newKeyClaim(token: covidShield).status == 404)
            #expect(try await h.issuer.request(.GET, IssuerTests.newKeyClaim).status == 404)
            #expect(try await h.callable("/generateCode", #"{"data":{}}"#, token: protego).status == 404)
            #expect(try await h.issuer.request(.GET, "/generateCodesBatch").status == 404)
            let officer = try await h.officerToken(roles: ["c19hotline"])
            for codeKind in ["COVIDSHIELD", "PROTEGO"] {
                let refused = try await h.issueCode(codeKind, token: officer)
                Covers.status(400, of: "POST /version/v1/codes", refused, error: "family_disabled")
            }
            #expect(try await h.rows("one_time_codes") == 0)
        }
        // One family on, the other off: each as its switch says.
        try await VerificationHarness.run(on: kind, environment: ["COVIDSHIELD_ENABLED": "true", "PROTEGO_ENABLED": "false"]) { h in
            #expect(try await h.newKeyClaim(token: try await h.addIssuer("ontario-ha", kind: "covidshield")).status == 200)
            #expect(try await h.callable("/generateCode", #"{"data":{}}"#, token: try await h.addIssuer("gis-pl", kind: "protego")).status == 404)
            let officer = try await h.officerToken(roles: ["c19hotline"])
            #expect(try await h.issueCode("COVIDSHIELD", token: officer).status == 201)
            #expect(try await h.issueCode("PROTEGO", token: officer).status == 400)
        }
    }
}
