import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification
@testable import VerificationDomain

/// Issue #60, items 5 and 6: issuers belong to a health authority, and operators without the portal manage the
/// authorities with `verification-service authorities list|add|disable|enable`.
@Suite struct AuthorityCommandTests {
    @Test(arguments: TestDatabase.all)
    func theCommandAddsListsDisablesAndEnablesAuthorities(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let added = try await h.authorities([
                "add", "--id", "toronto", "--name", "Toronto Public Health", "--families", "covidshield, protego", "--regions", "ON",
                "--per-hour", "20", "--per-day", "100", "--issuer-codes-per-hour", "30", "--issuer-codes-per-day", "200",
            ])
            #expect(added.hasPrefix("Health authority toronto created."))
            let table = try await h.authorities(["list"])
            #expect(table == """
                AUTHORITY\tNAME\tFAMILIES\tREGIONS\tPER HOUR\tPER DAY\tPER KEY HOUR\tPER KEY DAY\tSTATE
                default\tDefault health authority\tcwa,covidshield,protego\tall\t-\t-\t-\t-\tenabled
                toronto\tToronto Public Health\tcovidshield,protego\tON\t20\t100\t30\t200\tenabled
                """)
            let changed = try await h.authorities([
                "set", "--id", "toronto", "--per-day", "none", "--issuer-codes-per-hour", "10", "--families", "cwa", "--regions", "ON,QC",
                "--name", "Toronto PH",
            ])
            #expect(changed == "Health authority toronto changed; its limits count from the next issuance.")
            #expect(try await h.authorities(["list"]).contains("toronto\tToronto PH\tcwa\tON,QC\t20\t-\t10\t200\tenabled"))
            _ = try await h.authorities([
                "set", "--id", "toronto", "--per-day", "100", "--issuer-codes-per-hour", "30", "--families", "covidshield,protego",
                "--regions", "ON", "--name", "Toronto Public Health",
            ])
            #expect(try await h.authorities(["disable", "--id", "toronto"]) == "Health authority toronto disabled.")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(try await h.authorities(["list", "--json"]).utf8)) as? [String: [[String: Any]]])
            let toronto = try #require(json["authorities"]?.last)
            #expect(toronto["id"] as? String == "toronto" && toronto["disabled"] as? Bool == true && toronto["regions"] as? [String] == ["ON"])
            #expect(toronto["families"] as? [String] == ["covidshield", "protego"] && toronto["teleTansPerHour"] as? Int == 20)
            #expect(toronto["issuerCodesPerHour"] as? Int == 30 && toronto["issuerCodesPerDay"] as? Int == 200)
            #expect(toronto["createdAt"] as? String == Date.iso8601(h.clock.now().epochSeconds))
            #expect(try await h.authorities(["enable", "--id", "toronto"]) == "Health authority toronto enabled.")
            #expect(try await h.authorities(["list"]).contains("toronto\tToronto Public Health\tcovidshield,protego\tON\t20\t100\t30\t200\tenabled"))

            for wrong in [
                ["add", "--id", "toronto", "--name", "Again"],  // taken
                ["add", "--id", "Toronto", "--name", "x"],
                ["add", "--id", "x", "--name", ""],
                ["add", "--id", "x", "--name", "x", "--families", "cwa,lemon"],
                ["add", "--id", "x", "--name", "x", "--regions", "O N"],
                ["add", "--id", "x", "--name", "x", "--per-hour", "0"],
                ["add", "--id", "x", "--name", "x", "--issuer-codes-per-hour", "0"],
                ["add", "--id", "x", "--name", "x", "--issuer-codes-per-day", "10000001"],
                ["add", "--id", "x"],
                ["disable", "--id", "nowhere"],
                ["set", "--id", "nowhere", "--per-hour", "5"],
                ["set", "--id", "toronto"],
                ["set", "--id", "toronto", "--per-hour", "0"],
                ["set", "--id", "toronto", "--issuer-codes-per-day", "many"],
                ["set", "--id", "toronto", "--families", "cwa,lemon"],
                ["set", "--id", "toronto", "--name", ""],
                ["set", "--id", "toronto", "--regions", "O N"],
                ["enable", "--id", "nowhere"],
                [],
            ] {
                await #expect(throws: UsageError.self, "\(wrong)") { try await h.authorities(wrong) }
            }
            #expect(try await h.rows("authorities") == 2)
        }
    }

    /// An issuer of a disabled authority, or of one that may not issue its family (or for its region), issues nothing
    /// and is answered exactly as an unknown token in its family's form.
    @Test(arguments: TestDatabase.all)
    func anIssuerOfADisabledOrNarrowerAuthorityIsAnsweredAsAnUnknownToken(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            try await h.addAuthority("toronto", families: "covidshield,protego")
            let covidShield = try await h.addIssuer("toronto-ha", kind: "covidshield", authority: "toronto")
            let proteGO = try await h.addIssuer("toronto-pl", kind: "protego", authority: "toronto")
            #expect(try await h.issuers(["list"]).contains("toronto-ha\tcovidshield\tON\ttoronto\t"))
            #expect(try await h.newKeyClaim(token: covidShield).status == 200)
            #expect(try await h.callable("/generateCode", #"{"data":{}}"#, token: proteGO).status == 200)
            let unknownClaim = try await h.newKeyClaim(token: IssuerToken.generate(using: SystemRandomSource()))
            let unknownCall = try await h.callable("/generateCode", #"{"data":{}}"#, token: IssuerToken.generate(using: SystemRandomSource()))
            #expect(unknownClaim.status == 401 && unknownCall.status == 403)

            func expectAnsweredAsUnknown() async throws {
                let claim = try await h.newKeyClaim(token: covidShield)
                #expect(claim.status == unknownClaim.status && claim.text == unknownClaim.text && claim.header("Content-Type") == unknownClaim.header("Content-Type"))
                let call = try await h.callable("/generateCode", #"{"data":{}}"#, token: proteGO)
                #expect(call.status == unknownCall.status && call.text == unknownCall.text && call.header("Content-Type") == unknownCall.header("Content-Type"))
            }
            _ = try await h.authorities(["disable", "--id", "toronto"])
            try await expectAnsweredAsUnknown()
            _ = try await h.authorities(["enable", "--id", "toronto"])
            #expect(try await h.newKeyClaim(token: covidShield).status == 200)

            // Narrowed through the API: no ProteGO, and CovidShield for Quebec only.
            let sysadmin = try await h.officerToken(roles: [OfficerRoles.systemAdministrator])
            let narrowed: [String: Any] = ["name": "Toronto", "regions": ["QC"], "families": ["covidshield"], "disabled": false]
            let bytes = Array(try JSONSerialization.data(withJSONObject: narrowed))
            let changed = try await h.internal.request(
                .PUT, "/version/v1/authorities/toronto", headers: [("Authorization", "Bearer \(sysadmin)"), ("Content-Type", "application/json")], body: bytes
            )
            #expect(changed.status == 200)
            try await expectAnsweredAsUnknown()
            #expect(try await h.rows("one_time_codes") == 3)
            #expect(try await h.rows("code_issuance_audit") == 3)
            // The default authority's issuers are untouched.
            let other = try await h.addIssuer("ontario-ha", kind: "covidshield")
            #expect(try await h.newKeyClaim(token: other).status == 200)
        }
    }
}
