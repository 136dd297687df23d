import ExposureCore
import ExposureTestSupport
@testable import PortalDomain
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

    /// A system administrator's switch: on, every page says so and nothing is issued; off, issuance is back. Another
    /// replica (here: the switch changed in the database behind this portal's back) follows within five seconds.
    @Test(arguments: TestDatabase.all)
    func aSystemAdministratorSwitchesMaintenanceOnAndOff(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, portal: ["OFFICER_TELETAN_INTERVAL": "1s"]) { h in
            let sam = try await h.systemAdministrator()
            let anna = try await h.signedIn("anna")
            let page = try await sam.get("/maintenance")
            Covers.status(200, of: "GET /maintenance", page)
            #expect(page.text.contains("The portal is not in maintenance.") && page.text.contains(#"id="start-maintenance""#))
            #expect(page.text.contains(#"id="nav-maintenance""#))

            let on = try await sam.administer("/maintenance", [("switch", "on")], from: "/maintenance")
            Covers.status(303, of: "POST /maintenance", on)
            let switched = try await sam.get("/maintenance")
            #expect(switched.text.contains("The portal is in maintenance.") && switched.text.contains("Last switched by sam"))
            #expect(switched.text.contains(#"id="maintenance-banner""#) && switched.text.contains(#"id="end-maintenance""#))
            #expect(try await anna.get("/").text.contains(#"id="maintenance-banner""#))
            Covers.status(503, of: "POST /teletan", try await anna.issue("TEST"), error: "maintenance")
            #expect(try await h.auditRows().isEmpty)

            // Switched off elsewhere: this portal follows once its reading is five seconds old.
            let elsewhere = OfficerAuditEntry(
                actor: "sara", actorSource: .local, action: OfficerAction.maintenanceEnded.rawValue, target: nil, detail: nil,
                occurredAt: h.clock.now().epochSeconds, authority: nil
            )
            try await PortalSettingsStore(database: h.database).set(PortalSettingsStore.maintenance, to: "off", audit: elsewhere)
            #expect(try await anna.get("/").text.contains(#"id="maintenance-banner""#))
            h.clock.advance(by: 6)
            #expect(try await !anna.get("/").text.contains(#"id="maintenance-banner""#))
            #expect(try await anna.issue("TEST").status == 200)

            let rows = try await h.administrationRows()
            #expect(rows.contains("sam maintenance_started - -") && rows.contains("sara maintenance_ended - -"))
            let audit = try await sam.get("/audit?action=maintenance_started")
            #expect(audit.text.contains("Maintenance started"))

            // Mistakes and other roles change nothing.
            Covers.status(400, of: "POST /maintenance", try await sam.administer("/maintenance", [("switch", "maybe")], from: "/maintenance"), error: "bad-request")
            let sofia = try await h.supervisor("sofia")
            Covers.status(403, of: "GET /maintenance", try await sofia.get("/maintenance"), error: "not-system-administrator")
            Covers.status(403, of: "POST /maintenance", try await sofia.administer("/maintenance", [("switch", "on")]), error: "not-system-administrator")
            Covers.status(303, of: "GET /maintenance", try await h.browser().get("/maintenance"))
            Covers.status(303, of: "POST /maintenance", try await h.browser().post("/maintenance", [("switch", "on")]))
            h.clock.advance(by: 6)
            #expect(try await !anna.get("/").text.contains(#"id="maintenance-banner""#))
        }
    }

    /// `MAINTENANCE_MODE` holds the portal in maintenance whatever the switch says, and the page says so.
    @Test(arguments: [TestDatabase.sqlite])
    func theOperatorsSettingOutranksTheSwitch(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, portal: ["MAINTENANCE_MODE": "true"]) { h in
            let sam = try await h.systemAdministrator()
            #expect(try await sam.administer("/maintenance", [("switch", "on")], from: "/maintenance").status == 303)
            #expect(try await sam.administer("/maintenance", [("switch", "off")], from: "/maintenance").status == 303)
            let page = try await sam.get("/maintenance")
            #expect(page.text.contains(#"id="maintenance-by-setting""#) && page.text.contains("The portal is in maintenance."))
            Covers.status(503, of: "POST /teletan", try await h.signedIn("anna").issue("TEST"), error: "maintenance")
        }
    }
}
