import ExposureCore
import ExposureTestSupport
import Foundation
@testable import PortalDomain
import SQLKit
import ExposureStatistics
import Testing
@testable import Portal
import Verification
import VerificationDomain

/// Health authorities as tenants in the portal: a supervisor of one authority sees and changes only that authority's
/// accounts and audit rows; a system administrator reads every authority's and administers no officer; an
/// installation without authorities migrates into `default` with nothing lost.
@Suite struct AuthorityScopingTests {
    /// Sofia supervises `north`, Tom `default`: each sees only their own authority's officers, and every change to the
    /// other's is answered as for an account that does not exist, changing nothing.
    @Test(arguments: TestDatabase.all)
    func aSupervisorSeesAndChangesOnlyTheirAuthoritysOfficers(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            try await h.addOfficer("ben", authority: "north")
            try await h.addOfficer("cara")
            let sofia = try await h.supervisor("sofia", authority: "north")
            let tom = try await h.supervisor("tom")

            let north = try await sofia.get("/officers")
            #expect(north.status == 200)
            #expect(north.text.contains(#"id="officer-ben""#) && north.text.contains(#"id="officer-sofia""#))
            #expect(!north.text.contains(#"id="officer-cara""#) && !north.text.contains(#"id="officer-tom""#))
            let home = try await tom.get("/officers")
            #expect(home.text.contains(#"id="officer-cara""#) && !home.text.contains(#"id="officer-ben""#))

            let before = try await h.users(["list"])
            let attempts: [(String, [(String, String)])] = [
                ("/officers/disable", [("name", "cara")]),
                ("/officers/enable", [("name", "cara")]),
                ("/officers/reset-password", [("name", "cara")]),
                ("/officers/roles", [("name", "cara"), ("role-c19supervisor", "on")]),
            ]
            for (path, fields) in attempts {
                let answer = try await sofia.administer(path, fields)
                #expect(answer.status == 404, "\(path)")
                #expect(answer.text.contains("no-such-officer"), "\(path)")
            }
            #expect(try await h.users(["list"]) == before)
            #expect(try await h.administrationRows().allSatisfy { !$0.contains(" cara") })
            // Cara can still sign in with her own password: no reset reached her.
            #expect(try await h.browser().signIn("cara", PortalHarness.password).status == 303)

            // An officer Sofia adds joins her authority; she cannot make anyone a system administrator.
            let added = try await sofia.administer("/officers", [("name", "dora"), ("role-c19hotline", "on"), ("role-c19sysadmin", "on")])
            #expect(added.status == 200)
            let dora = try #require(try await h.users(["list"]).split(separator: "\n").first { $0.hasPrefix("dora\t") })
            #expect(dora.hasPrefix("dora\tc19hotline\t") && dora.hasSuffix("\tnorth"))
            _ = try await sofia.administer("/officers/roles", [("name", "ben"), ("role-c19sysadmin", "on"), ("role-c19hotline", "on")])
            let ben = try #require(try await h.users(["list"]).split(separator: "\n").first { $0.hasPrefix("ben\t") })
            #expect(ben.hasPrefix("ben\tc19hotline\t"))
        }
    }

    /// The audit page and its download show a supervisor only their authority's rows, of both logs; a system
    /// administrator sees every authority's.
    @Test(arguments: TestDatabase.all)
    func theAuditLogIsReadPerAuthorityAndNationallyBySystemAdministrators(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let sofia = try await h.supervisor("sofia", authority: "north")
            let tom = try await h.supervisor("tom")
            let sam = try await h.systemAdministrator()
            let now = h.clock.now().epochSeconds
            let administration = OfficerAuditLog(database: h.database)
            try await administration.record(OfficerAuditEntry(
                actor: "sofia", actorSource: .local, action: OfficerAction.disabled.rawValue, target: "northern-officer", detail: nil,
                occurredAt: now - 60, authority: "north"
            ))
            try await administration.record(OfficerAuditEntry(
                actor: "tom", actorSource: .local, action: OfficerAction.disabled.rawValue, target: "southern-officer", detail: nil,
                occurredAt: now - 50, authority: AuthorityID.default
            ))
            let issuance = AuditLog(database: h.database)
            try await issuance.record(AuditEntry(
                officer: "north-issuer", source: .local, occurredAt: now - 40, kind: .teleTAN(.test), healthAuthority: nil, outcome: .issued, authority: "north"
            ))
            try await issuance.record(AuditEntry(
                officer: "south-issuer", source: .oidc, occurredAt: now - 30, kind: .teleTAN(.test), healthAuthority: nil, outcome: .issued,
                authority: AuthorityID.default
            ))
            let northern = ["northern-officer", "north-issuer"]
            let southern = ["southern-officer", "south-issuer"]

            for path in ["/audit", "/audit.csv"] {
                let north = try await sofia.get(path)
                #expect(north.status == 200)
                #expect(northern.allSatisfy(north.text.contains), "\(path)")
                #expect(!southern.contains(where: north.text.contains), "\(path)")
                let south = try await tom.get(path)
                #expect(southern.allSatisfy(south.text.contains), "\(path)")
                #expect(!northern.contains(where: south.text.contains), "\(path)")
                let national = try await sam.get(path)
                #expect(national.status == 200)
                #expect((northern + southern).allSatisfy(national.text.contains), "\(path)")
            }
        }
    }

    /// A system administrator belongs to no authority: no officers page, nothing to issue, and the role cannot be
    /// combined with an authority's.
    @Test(arguments: TestDatabase.all)
    func aSystemAdministratorAdministersNoOfficerAndIssuesNothing(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let sam = try await h.systemAdministrator()
            let officers = try await sam.get("/officers")
            #expect(officers.status == 403)
            let home = try await sam.get("/")
            #expect(home.status == 200)
            let teleTAN = try await sam.post("/teletan", [("csrf", try PortalBrowser.csrf(in: home)), ("type", "TEST")])
            #expect(teleTAN.status == 403)
            #expect(try await h.auditRows().isEmpty)
            #expect(try await h.users(["list"]).contains("sam\tc19sysadmin\t"))
            #expect(try await h.users(["list", "--authority", "default"]).contains("sam") == false)
            await #expect(throws: UsageError.self) { try await h.users(["add", "x", "--roles", "c19sysadmin", "--authority", "north"]) }
            await #expect(throws: UsageError.self) { try await h.users(["add", "y", "--roles", "c19sysadmin,c19hotline"]) }
            await #expect(throws: UsageError.self) { try await h.users(["add", "z", "--roles", "c19hotline", "--authority", "North!"]) }
        }
    }

    /// An installation of the schema before authorities keeps every account, session and audit row, each now of
    /// `default`, and its officers keep signing in.
    @Test(arguments: TestDatabase.all)
    func anInstallationWithoutAuthoritiesMigratesIntoDefault(kind: TestDatabase) async throws {
        try await kind.withFreshDatabase { database in
            let before = Migrator(service: "portal", migrations: PortalMigrations.all.filter { $0.version <= 3 })
            try await before.migrate(database, logger: TestLogger.quiet)
            try await database.withConnection { connection in
                try await connection.raw("""
                    INSERT INTO portal_users (name, password_hash, roles, disabled_at, created_at, updated_at, must_change_password)
                    VALUES ('anna', 'hash', 'c19hotline,c19supervisor', NULL, 1, 1, 0)
                    """).run()
                try await connection.raw("""
                    INSERT INTO portal_sessions (id_hash, officer, roles, source, csrf_token, created_at, expires_at)
                    VALUES ('s', 'anna', 'c19hotline', 'local', 'csrf', 1, 99999999999)
                    """).run()
                try await connection.raw("""
                    INSERT INTO portal_audit_log (officer, source, occurred_at, teletan_type, health_authority, outcome)
                    VALUES ('anna', 'local', 5, 'TEST', NULL, 'issued')
                    """).run()
                try await connection.raw("""
                    INSERT INTO portal_admin_audit_log (actor, actor_source, action, target, detail, occurred_at)
                    VALUES ('anna', 'local', 'officer_added', 'ben', 'c19hotline', 6)
                    """).run()
            }
            #expect(try await PortalMigrations.migrator.migrate(database, logger: TestLogger.quiet) == PortalMigrations.all.map(\.version).filter { $0 > 3 })

            let anna = try #require(try await UserStore(database: database).find(name: "anna"))
            #expect(anna.authority == AuthorityID.default && anna.passwordHash == "hash" && anna.roles == ["c19hotline", "c19supervisor"])
            let session = try #require(try await SessionStore(database: database).find(idHash: "s", now: Date(timeIntervalSince1970: 10)))
            #expect(session.officer.authority == AuthorityID.default)
            let rows = try await OfficerAuditLog(database: database).page(
                try AuditFilter.parse(actor: nil, action: nil, from: nil, to: nil, page: nil), in: .authority(AuthorityID.default)
            )
            #expect(rows.map(\.action) == [OfficerAction.added.rawValue, OfficerAction.issuance])
            #expect(try await OfficerAuditLog(database: database).page(
                try AuditFilter.parse(actor: nil, action: nil, from: nil, to: nil, page: nil), in: .authority("north")
            ).isEmpty)
        }
    }
}

extension AuthorityScopingTests {
    /// A supervisor's statistics are their own authority's officers' figures, from the portal's audit log, with none
    /// of another authority's and none of the services' national counts; the system administrator's are national.
    @Test(arguments: TestDatabase.all)
    func aSupervisorsStatisticsAreTheirAuthoritysOwn(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let yesterday = h.clock.now().epochSeconds - 86400
            let log = AuditLog(database: h.database)
            for (officer, authority, outcome) in [
                ("n1", "north", AuditEntry.Outcome.issued), ("n2", "north", .issued), ("n3", "north", .officerLimited),
                ("s1", AuthorityID.default, .issued), ("s2", AuthorityID.default, .issued), ("s3", AuthorityID.default, .issued),
            ] {
                try await log.record(AuditEntry(
                    officer: officer, source: .local, occurredAt: yesterday, kind: .teleTAN(.test), healthAuthority: nil, outcome: outcome, authority: authority
                ))
            }
            let sofia = try await h.supervisor("sofia", authority: "north")
            let page = try await sofia.get("/statistics")
            #expect(page.status == 200)
            #expect(page.text.contains(#"id="figure-authority-officer-issuance""#))
            #expect(page.text.contains(#"id="figure-authority-officer-issuance-refused""#))
            #expect(!page.text.contains(#"id="source-verification""#))
            let csv = try await sofia.get("/statistics.csv?days=7")
            #expect(csv.status == 200)
            let day = StatisticsDay(of: Date(timeIntervalSince1970: TimeInterval(yesterday))).description
            #expect(csv.text.contains("authority,\(day),officer_issuance,TEST,2"), "\(csv.text)")
            #expect(csv.text.contains("authority,\(day),officer_issuance_refused,officer_limited,1"), "\(csv.text)")
            #expect(!csv.text.contains(",3"), "\(csv.text)")
            // The system administrator reads the services' national figures.
            let national = try await h.systemAdministrator().get("/statistics")
            #expect(national.status == 200 && !national.text.contains(#"id="source-authority""#))
        }
    }
}

extension AuthorityScopingTests {
    /// Without a list of numbered offices (`HEALTH_AUTHORITIES`), an EVENT teleTAN names the officer's own authority.
    @Test(arguments: TestDatabase.all)
    func anEventTeleTANNamesTheOfficersAuthority(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, portal: ["HEALTH_AUTHORITIES": ""]) { h in
            let eva = try await h.signedIn("eva", roles: "c19hotline_event")
            #expect(try await !eva.get("/").text.contains(#"name="healthAuthority""#))
            let page = try await eva.issue("EVENT")
            #expect(page.status == 200)
            #expect(try await h.auditRows() == [["officer": "eva", "teletan_type": "EVENT", "health_authority": AuthorityID.default, "outcome": "issued"]])
        }
    }
}

extension AuthorityScopingTests {
    /// An officer issues for their own authority, which verification knows from the portal's token: an authority
    /// without a family issues none of it, and its own limit is told apart from the nationwide one and audited so.
    @Test(arguments: TestDatabase.all)
    func anOfficerIssuesWithinTheirAuthoritysFamiliesAndLimit(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, portal: ["OFFICER_TELETAN_INTERVAL": "1s", "ONE_TIME_CODE_KINDS": "protego"]) { h in
            let register = AuthorityStore(database: h.verificationDatabase)
            _ = try await register.create(id: "north", settings: .init(name: "North", families: [.cwa], teleTANsPerHour: 1), now: h.clock.now())
            let nina = try await h.signedIn("nina", roles: "c19hotline", authority: "north")
            // The start page offers only what north issues: teleTANs, no ProteGO PIN.
            let start = try await nina.get("/")
            #expect(start.text.contains(#"id="issue-test""#) && !start.text.contains(#"id="issue-protego""#))
            let first = try await nina.issue("TEST")
            #expect(first.status == 200)
            h.clock.advance(by: 2)
            let second = try await nina.issue("TEST")
            #expect(second.status == 429)
            #expect(PortalBrowser.problem(in: second) == "authority-limit")
            #expect(second.text.contains("Your health authority has issued as many"))
            // Another authority's officer is not held by north's limit.
            let dora = try await h.signedIn("dora", roles: "c19hotline")
            #expect(try await dora.get("/").text.contains(#"id="issue-protego""#))
            #expect(try await dora.issue("TEST").status == 200)
            #expect(try await h.auditRows().map { $0["outcome"] } == ["issued", "authority_limited", "issued"])
            // A family north may not issue is refused by verification, and nothing is issued.
            h.clock.advance(by: 2)
            let code = try await nina.issueCode("PROTEGO")
            #expect(code.status == 502)
            #expect(try await h.auditRows().last?["outcome"] == "refused")
        }
    }
}
