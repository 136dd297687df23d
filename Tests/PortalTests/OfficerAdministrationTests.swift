import ExposureCore
import ExposureTestSupport
import Foundation
@testable import PortalDomain
import Testing
@testable import Portal

/// Supervisors administer the local accounts in the portal: each step works, is audited, and refuses forged forms,
/// officers who are not supervisors, and a supervisor's attempt to lock themselves out.
@Suite struct OfficerAdministrationTests {
    /// A new officer gets a temporary password shown once; signed in with it they reach nothing but the password page
    /// until they have chosen their own.
    @Test(arguments: TestDatabase.all)
    func aSupervisorAddsAnOfficerWhoMustChooseTheirOwnPassword(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let sofia = try await h.supervisor()
            let list = try await sofia.get("/officers")
            Covers.status(200, of: "GET /officers", list)
            #expect(list.text.contains(#"id="officer-sofia""#))
            #expect(list.text.contains(#"href="/audit""#))

            let added = try await sofia.administer("/officers", [("name", "ben"), ("role-c19hotline", "on")])
            Covers.status(200, of: "POST /officers", added)
            let temporary = try PortalBrowser.temporaryPassword(in: added)
            #expect(temporary.count == 20)
            #expect(added.header("Cache-Control") == "no-store")
            let account = try #require(try await h.users(["list"]).split(separator: "\n").first { $0.hasPrefix("ben\t") })
            #expect(account.hasPrefix("ben\tc19hotline\t"))
            #expect(try await h.administrationRows() == ["sofia officer_added ben c19hotline"])

            // Signed in with the temporary password, the session is sent to the password page and nowhere else.
            let ben = h.browser()
            let signIn = try await ben.signIn("ben", temporary)
            #expect(signIn.status == 303)
            #expect(signIn.header("Location") == "/password")
            #expect(try await ben.get("/").header("Location") == "/password")
            #expect(try await ben.get("/login").header("Location") == "/password")
            let page = try await ben.get("/password")
            Covers.status(200, of: "GET /password", page)
            #expect(page.text.contains(#"id="forced""#))
            let token = try PortalBrowser.csrf(in: page)
            let teleTAN = try await ben.post("/teletan", [("csrf", token), ("type", "TEST")])
            #expect(teleTAN.status == 303)
            #expect(teleTAN.header("Location") == "/password")
            #expect(try await h.auditRows().isEmpty)

            let mismatch = try await ben.changePassword(from: temporary, to: "a new long password", repeated: "another long password")
            Covers.status(400, of: "POST /password", mismatch)
            #expect(mismatch.text.contains("The two new passwords are not the same."))
            let short = try await ben.changePassword(from: temporary, to: "short")
            #expect(short.status == 400)
            let same = try await ben.changePassword(from: temporary, to: temporary)
            #expect(same.status == 400)
            let wrong = try await ben.changePassword(from: "not the password", to: "a new long password")
            Covers.status(401, of: "POST /password", wrong)
            #expect(wrong.text.contains("The current password is wrong."))
            #expect(try await ben.get("/").header("Location") == "/password")

            let changed = try await ben.changePassword(from: temporary, to: "a new long password")
            Covers.status(303, of: "POST /password", changed)
            #expect(changed.header("Location") == "/")
            #expect(try await ben.get("/").status == 200)
            #expect(try await h.administrationRows().last == "ben password_changed ben -")
            // The temporary password is gone, and the next sign-in goes straight to the start page.
            #expect(try await h.browser().signIn("ben", temporary).status == 401)
            #expect(try await h.browser().signIn("ben", "a new long password").header("Location") == "/")
            // No password is in the audit log.
            #expect(try await h.administrationRows().allSatisfy { !$0.contains(temporary) && !$0.contains("a new long password") })
        }
    }

    /// Each change refuses a form without the session's CSRF token, with another token, and from an officer who is
    /// not a supervisor; the supervisor's pages refuse such an officer too. Nothing changes, nothing is audited.
    @Test(arguments: TestDatabase.all)
    func everyStepRefusesAForgedFormAndAnOfficerWhoIsNotASupervisor(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let sofia = try await h.supervisor()
            let ben = try await h.signedIn("ben", roles: "c19hotline")
            let benToken = try PortalBrowser.csrf(in: try await ben.get("/"))
            let steps: [(String, [(String, String)])] = [
                ("/officers", [("name", "cara"), ("role-c19supervisor", "on")]),
                ("/officers/disable", [("name", "ben")]),
                ("/officers/enable", [("name", "ben")]),
                ("/officers/reset-password", [("name", "ben")]),
                ("/officers/roles", [("name", "ben"), ("role-c19supervisor", "on")]),
            ]
            var missing: [String: BrowserResponse] = [:], notSupervisor: [String: BrowserResponse] = [:], signedOut: [String: BrowserResponse] = [:]
            for (path, fields) in steps {
                missing[path] = try await sofia.post(path, fields)
                let wrong = try await sofia.post(path, [("csrf", benToken)] + fields)
                #expect(wrong.status == 403, "\(path)")
                #expect(PortalBrowser.problem(in: wrong) == "form-expired", "\(path)")
                notSupervisor[path] = try await ben.post(path, [("csrf", benToken)] + fields)
                #expect(notSupervisor[path]!.text.contains("The Officers page, where officers are added, disabled and given roles and new passwords, is for supervisors"))
                // Without a session: back to the sign-in page.
                signedOut[path] = try await h.browser().post(path, [("csrf", benToken)] + fields)
                #expect(signedOut[path]!.header("Location")?.hasPrefix("/login") == true)
            }
            Covers.status(403, of: "POST /officers", missing["/officers"]!, error: "form-expired")
            Covers.status(403, of: "POST /officers/disable", missing["/officers/disable"]!, error: "form-expired")
            Covers.status(403, of: "POST /officers/enable", missing["/officers/enable"]!, error: "form-expired")
            Covers.status(403, of: "POST /officers/reset-password", missing["/officers/reset-password"]!, error: "form-expired")
            Covers.status(403, of: "POST /officers/roles", missing["/officers/roles"]!, error: "form-expired")
            Covers.status(403, of: "POST /officers", notSupervisor["/officers"]!, error: "not-supervisor")
            Covers.status(403, of: "POST /officers/disable", notSupervisor["/officers/disable"]!, error: "not-supervisor")
            Covers.status(403, of: "POST /officers/enable", notSupervisor["/officers/enable"]!, error: "not-supervisor")
            Covers.status(403, of: "POST /officers/reset-password", notSupervisor["/officers/reset-password"]!, error: "not-supervisor")
            Covers.status(403, of: "POST /officers/roles", notSupervisor["/officers/roles"]!, error: "not-supervisor")
            Covers.status(303, of: "POST /officers", signedOut["/officers"]!)
            Covers.status(303, of: "POST /officers/disable", signedOut["/officers/disable"]!)
            Covers.status(303, of: "POST /officers/enable", signedOut["/officers/enable"]!)
            Covers.status(303, of: "POST /officers/reset-password", signedOut["/officers/reset-password"]!)
            Covers.status(303, of: "POST /officers/roles", signedOut["/officers/roles"]!)
            Covers.status(403, of: "GET /officers", try await ben.get("/officers"), error: "not-supervisor")
            Covers.status(403, of: "GET /audit", try await ben.get("/audit"), error: "not-supervisor")
            let officersSignedOut = try await h.browser().get("/officers")
            Covers.status(303, of: "GET /officers", officersSignedOut)
            #expect(officersSignedOut.header("Location") == "/login")
            let auditSignedOut = try await h.browser().get("/audit")
            Covers.status(303, of: "GET /audit", auditSignedOut)
            #expect(auditSignedOut.header("Location") == "/login")
            #expect(try await h.administrationRows().isEmpty)
            let accounts = try await h.users(["list"])
            #expect(!accounts.contains("cara"))
            #expect(accounts.contains("ben\tc19hotline\t"))
            #expect(!accounts.contains("disabled"))
            #expect(try await ben.get("/").status == 200)
            // The officer's own navigation does not offer the supervisor's pages.
            #expect(!(try await ben.get("/").text.contains(#"href="/officers""#)))
        }
    }

    /// Disabling ends the officer's sessions at once and refuses their sign-in; enabling lets them in again.
    @Test(arguments: TestDatabase.all)
    func disablingEndsTheSessionsAndEnablingLetsTheOfficerIn(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let sofia = try await h.supervisor()
            let ben = try await h.signedIn("ben")
            let disabled = try await sofia.administer("/officers/disable", [("name", "ben")])
            Covers.status(303, of: "POST /officers/disable", disabled)
            #expect(disabled.header("Location") == "/officers?done=disabled&name=ben")
            let notice = try await sofia.get(try #require(disabled.header("Location")))
            #expect(notice.text.contains("ben is disabled; their sessions have ended."))
            #expect(try await ben.get("/").header("Location") == "/login?notice=ended")
            #expect(try await h.browser().signIn("ben", PortalHarness.password).status == 401)

            let enabled = try await sofia.administer("/officers/enable", [("name", "ben")])
            Covers.status(303, of: "POST /officers/enable", enabled)
            #expect(try await h.browser().signIn("ben", PortalHarness.password).status == 303)
            #expect(try await h.administrationRows() == ["sofia officer_disabled ben -", "sofia officer_enabled ben -"])

            let unknown = try await sofia.administer("/officers/disable", [("name", "nobody")])
            Covers.status(404, of: "POST /officers/disable", unknown, error: "no-such-officer")
            let unknownEnable = try await sofia.administer("/officers/enable", [("name", "nobody")])
            Covers.status(404, of: "POST /officers/enable", unknownEnable, error: "no-such-officer")
            #expect(try await h.administrationRows().count == 2)
        }
    }

    /// A step and its audit row are stored together or not at all: when the audit row cannot be written, the step
    /// is undone and the supervisor is told it failed, so that no change goes unaudited.
    @Test(arguments: TestDatabase.all)
    func aStepWhoseAuditRowCannotBeWrittenIsNotMade(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let sofia = try await h.supervisor()
            try await h.addOfficer("ben")
            try await h.database.withConnection { try await $0.raw("ALTER TABLE portal_admin_audit_log RENAME TO audit_away").run() }
            for (path, fields) in [
                ("/officers/disable", [("name", "ben")]), ("/officers/roles", [("name", "ben"), ("role-c19supervisor", "on")]),
                ("/officers/reset-password", [("name", "ben")]), ("/officers", [("name", "nina"), ("role-c19hotline", "on")]),
            ] {
                let answer = try await sofia.administer(path, fields)
                #expect(answer.status == 500, "\(path)")
                #expect(!answer.text.contains("temporary-password"), "\(path)")
            }
            try await h.database.withConnection { try await $0.raw("ALTER TABLE audit_away RENAME TO portal_admin_audit_log").run() }
            // Ben is as he was: enabled, with his roles and his password; Nina was never added.
            let ben = h.browser()
            #expect(try await ben.signIn("ben", PortalHarness.password).status == 303)
            #expect(try await ben.get("/officers").status == 403)
            #expect(try await h.browser().signIn("nina", "anything at all").status == 401)
            #expect(try await h.administrationRows().isEmpty)
        }
    }

    /// A reset gives a new temporary password, shown once, and ends the officer's sessions; the old password is dead.
    @Test(arguments: TestDatabase.all)
    func aResetGivesATemporaryPasswordAndEndsTheSessions(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let sofia = try await h.supervisor()
            let ben = try await h.signedIn("ben")
            let reset = try await sofia.administer("/officers/reset-password", [("name", "ben")])
            Covers.status(200, of: "POST /officers/reset-password", reset)
            let temporary = try PortalBrowser.temporaryPassword(in: reset)
            #expect(reset.text.contains("ben has a new temporary password; their sessions have ended."))
            #expect(try await ben.get("/").header("Location") == "/login?notice=ended")
            #expect(try await h.browser().signIn("ben", PortalHarness.password).status == 401)
            let again = h.browser()
            #expect(try await again.signIn("ben", temporary).header("Location") == "/password")
            #expect(try await h.administrationRows() == ["sofia password_reset ben -"])

            let unknown = try await sofia.administer("/officers/reset-password", [("name", "nobody")])
            Covers.status(404, of: "POST /officers/reset-password", unknown, error: "no-such-officer")
        }
    }

    /// New roles reach the officer's open sessions at their next request: given the supervisor role, an officer opens
    /// the officers page without signing in again; a role taken away is gone as quickly.
    @Test(arguments: TestDatabase.all)
    func changedRolesReachTheOfficersSessions(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let sofia = try await h.supervisor()
            let ben = try await h.signedIn("ben", roles: "c19hotline")
            #expect(try await ben.get("/officers").status == 403)
            let changed = try await sofia.administer("/officers/roles", [("name", "ben"), ("role-c19supervisor", "on"), ("role-c19hotline_event", "on"), ("role-admin", "on")])
            Covers.status(303, of: "POST /officers/roles", changed)
            #expect(try await sofia.get(try #require(changed.header("Location"))).text.contains("The roles of ben are saved."))
            // A supervisor now, ben sets up two-factor sign-in before the officers page opens.
            #expect(try await ben.get("/officers").header("Location") == "/totp")
            let start = try await ben.get("/")
            #expect(!start.text.contains(#"id="issue-test""#))
            #expect(start.text.contains(#"id="form-event""#))
            #expect(try await h.users(["list"]).contains("ben\tc19hotline_event,c19supervisor\t"))
            #expect(try await h.administrationRows() == ["sofia roles_changed ben c19hotline_event,c19supervisor"])

            let unknown = try await sofia.administer("/officers/roles", [("name", "nobody")])
            Covers.status(404, of: "POST /officers/roles", unknown, error: "no-such-officer")
        }
    }

    /// A supervisor cannot disable themselves, take away their own supervisor role, or reset their own password;
    /// another supervisor can.
    @Test(arguments: TestDatabase.all)
    func aSupervisorCannotLockThemselvesOut(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let sofia = try await h.supervisor()
            let disable = try await sofia.administer("/officers/disable", [("name", "sofia")])
            Covers.status(409, of: "POST /officers/disable", disable, error: "disable-self")
            #expect(disable.text.contains("You cannot disable your own account."))
            let roles = try await sofia.administer("/officers/roles", [("name", "sofia"), ("role-c19hotline", "on")])
            Covers.status(409, of: "POST /officers/roles", roles, error: "own-supervisor-role")
            #expect(roles.text.contains("You cannot remove your own supervisor role"))
            let reset = try await sofia.administer("/officers/reset-password", [("name", "sofia")])
            Covers.status(409, of: "POST /officers/reset-password", reset, error: "reset-own-password")
            // Keeping the supervisor role while adding another is fine.
            let more = try await sofia.administer("/officers/roles", [("name", "sofia"), ("role-c19supervisor", "on"), ("role-c19hotline", "on")])
            #expect(more.status == 303)
            #expect(try await sofia.get("/officers").status == 200)
            #expect(try await h.users(["list"]).contains("sofia\tc19hotline,c19supervisor\tcreated"))
            #expect(!(try await h.users(["list"]).contains("disabled")))

            let tom = try await h.supervisor("tom")
            #expect(try await tom.administer("/officers/roles", [("name", "sofia"), ("role-c19hotline", "on")]).status == 303)
            #expect(try await sofia.get("/officers").status == 403)
            #expect(try await tom.administer("/officers/disable", [("name", "sofia")]).status == 303)
            #expect(try await sofia.get("/").header("Location") == "/login?notice=ended")
        }
    }

    /// A name outside the accounts' form, and a name that is taken, are refused with the reason.
    @Test(arguments: TestDatabase.all)
    func anAccountNeedsAWellFormedFreeName(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let sofia = try await h.supervisor()
            let invalid = try await sofia.administer("/officers", [("name", "with space"), ("role-c19hotline", "on")])
            Covers.status(400, of: "POST /officers", invalid, error: "invalid-name")
            let taken = try await sofia.administer("/officers", [("name", "sofia")])
            Covers.status(409, of: "POST /officers", taken, error: "name-taken")
            #expect(taken.text.contains("An account with this name exists already."))
            #expect(try await h.administrationRows().isEmpty)
            #expect(try await h.rows("portal_users") == 1)
        }
    }

    /// The administration speaks German to a German browser.
    @Test(arguments: TestDatabase.all)
    func thePagesSpeakGerman(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let sofia = try await h.supervisor(language: "de-DE,de;q=0.9")
            let list = try await sofia.get("/officers")
            #expect(list.text.contains("<h1>Mitarbeitende</h1>"))
            #expect(list.text.contains(#"<html lang="de">"#))
            let added = try await sofia.administer("/officers", [("name", "ben")])
            #expect(added.text.contains("ben wurde hinzugefügt."))
            #expect(try await sofia.get("/audit").text.contains("<h1>Protokoll</h1>"))
            let refused = try await sofia.administer("/officers/disable", [("name", "sofia")])
            #expect(refused.text.contains("Sie können Ihr eigenes Konto nicht deaktivieren."))
            let ben = h.browser(language: "de")
            try await ben.signIn("ben", try PortalBrowser.temporaryPassword(in: added))
            #expect(try await ben.get("/password").text.contains("Ihr Passwort ist vorläufig."))
        }
    }

    /// A supervisor of the identity provider administers the local accounts too; their own password is the
    /// provider's business, so the portal has no password page for them.
    @Test(arguments: TestDatabase.all)
    func aSupervisorOfTheIdentityProviderAdministersLocalAccounts(kind: TestDatabase) async throws {
        let provider = TestOIDCProvider(roles: ["c19supervisor"], clock: ManualClock(Date(timeIntervalSince1970: 1_750_000_000)))
        try await provider.run {
            try await PortalHarness.run(on: kind, portal: ["PUBLIC_URL": OIDCLoginTests.publicURL], oidc: provider) { h in
                let browser = h.browser()
                try #require(try await OIDCLoginTests.signIn(browser).status == 200)
                let start = try await browser.get("/")
                #expect(start.text.contains(#"href="/officers""#))
                #expect(!start.text.contains(#"href="/password""#))
                let password = try await browser.get("/password")
                Covers.status(404, of: "GET /password", password, error: "not-found")
                Covers.status(404, of: "GET /totp", try await browser.get("/totp"), error: "not-found")
                #expect(try await browser.administer("/officers", [("name", "ben"), ("role-c19hotline", "on")]).status == 200)
                #expect(try await h.administrationRows() == ["dr.oidc officer_added ben c19hotline"])
                #expect(try await browser.get("/audit").text.contains("dr.oidc (oidc)"))
            }
        }
    }
}
