import ExposureCore
import ExposureTestSupport
import Testing
@testable import Portal

/// Issue #62: in maintenance (`MAINTENANCE_MODE`) every page says so, no teleTAN or code is issued (nothing is asked of
/// verification), and sign-in, the statistics and the administration go on.
@Suite struct MaintenanceModeTests {
    @Test(arguments: TestDatabase.all)
    func maintenanceShowsABannerRefusesIssuanceAndKeepsTheRest(kind: TestDatabase) async throws {
        let settings = ["MAINTENANCE_MODE": "true", "ONE_TIME_CODE_KINDS": "covidshield,protego"]
        try await PortalHarness.run(on: kind, portal: settings) { h in
            let signIn = try await h.browser().get("/login")
            #expect(signIn.status == 200 && signIn.text.contains(#"id="maintenance-banner""#))
            let anna = try await h.signedIn("anna")
            let start = try await anna.get("/")
            #expect(start.text.contains("Maintenance: no teleTANs or codes can be issued at the moment."))
            let teleTAN = try await anna.issue("TEST")
            Covers.status(503, of: "POST /teletan", teleTAN, error: "maintenance")
            #expect(teleTAN.text.contains("The portal is in maintenance: no teleTAN or code was issued."))
            Covers.status(503, of: "POST /code", try await anna.issueCode("COVIDSHIELD"), error: "maintenance")
            // Nothing reached verification: no audit row of an issuance.
            #expect(try await h.auditRows().isEmpty)
            let supervisor = try await h.supervisor("sam")
            let statistics = try await supervisor.get("/statistics")
            #expect(statistics.status == 200 && statistics.text.contains(#"id="maintenance-banner""#))
            #expect(try await supervisor.get("/officers").status == 200)
            let german = try await h.signedIn("otto", language: "de").get("/")
            #expect(german.text.contains("Wartung: Derzeit können keine teleTANs oder Codes erzeugt werden."))
        }
        // Without the setting: no banner, and a teleTAN is issued.
        try await PortalHarness.run(on: kind) { h in
            let anna = try await h.signedIn("anna")
            #expect(try await !anna.get("/").text.contains("maintenance-banner"))
            #expect(try await anna.issue("TEST").status == 200)
        }
    }
}
