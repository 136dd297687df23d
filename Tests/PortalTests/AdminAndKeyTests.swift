import ExposureCore
import ExposureTestSupport
import ExposureStack
import Foundation
import JWTKit
@testable import PortalDomain
import Testing
@testable import Portal

@Suite struct AdminAndKeyTests {
    @Test(arguments: TestDatabase.all)
    func usersAreManagedFromTheCommandLine(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let added = try await h.users(["add", "anna", "--roles", "c19hotline,c19hotline_event"])
            #expect(added == "Added anna with roles c19hotline,c19hotline_event to the health authority default.")
            // Nothing on standard input: a password is generated and shown once, and it works.
            let generated = try await h.users(["add", "bert", "--roles=c19hotline"], password: nil)
            let password = try #require(generated.split(separator: "\n").last?.split(separator: " ").last.map(String.init))
            #expect(password.count == 20)
            try #require(try await h.browser().signIn("bert", password).status == 303)

            await #expect(throws: UsageError.self) { try await h.users(["add", "anna", "--roles", "c19hotline"]) }
            await #expect(throws: UsageError.self) { try await h.users(["add", "cara", "--roles", "admin"]) }
            await #expect(throws: UsageError.self) { try await h.users(["add", "cara"]) }
            await #expect(throws: UsageError.self) { try await h.users(["add", "dan", "--roles", "c19hotline"], password: "short") }
            await #expect(throws: UsageError.self) { try await h.users(["add", "with space", "--roles", "c19hotline"]) }
            await #expect(throws: UsageError.self) { try await h.users(["disable", "nobody"]) }

            try await h.users(["disable", "bert"])
            let list = try await h.users(["list"])
            #expect(list.contains("anna\tc19hotline,c19hotline_event"))
            #expect(list.contains("bert\tc19hotline\t"))
            #expect(list.contains("disabled"))
            // Only bcrypt hashes are stored.
            let hash = try await h.database.withConnection { connection in
                try await connection.raw("SELECT password_hash FROM portal_users WHERE name = 'anna'").first()!.decode(column: "password_hash", as: String.self)
            }
            #expect(hash.hasPrefix("$2b$04$"))
        }
    }

    @Test(arguments: TestDatabase.all)
    func theAuditListsTheLatestRequestsNewestFirst(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            #expect(try await h.audit([]) == "No teleTAN requests yet.")
            let log = AuditLog(database: h.database)
            for (index, officer) in ["anna", "bert", "cara"].enumerated() {
                try await log.record(AuditEntry(
                    officer: officer, source: .local, occurredAt: 1_750_000_000 + Int64(index) * 60, kind: .event,
                    healthAuthority: "1.08.2.12.", outcome: index == 1 ? .officerLimited : .issued, authority: index == 0 ? "north" : "default"
                ))
            }
            let latest = try await h.audit(["--limit", "2"]).split(separator: "\n")
            #expect(latest == [
                "TIME\tOFFICER\tTYPE\tHEALTH AUTHORITY\tOUTCOME\tAUTHORITY",
                "2025-06-15T15:08:40Z\tlocal:cara\tEVENT\t1.08.2.12.\tissued\tdefault",
                "2025-06-15T15:07:40Z\tlocal:bert\tEVENT\t1.08.2.12.\tofficer_limited\tdefault",
            ])
            // One authority's requests only.
            #expect(try await h.audit(["--authority", "north"]).split(separator: "\n").dropFirst() == ["2025-06-15T15:06:40Z\tlocal:anna\tEVENT\t1.08.2.12.\tissued\tnorth"])
            #expect(try await h.audit(["--limit=5"]).split(separator: "\n").count == 4)
            #expect(try await h.audit([]).split(separator: "\n").count == 4)
            for limit in ["0", "100001", "ten", ""] {
                await #expect(throws: UsageError.self) { try await h.audit(["--limit", limit]) }
            }
        }
    }

    /// The portal never makes its key: the stack (the suite, the tests) makes a development one, once, private.
    @Test func theStacksDevelopmentKeysAreMadeOncePrivately() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("key-\(UUID().uuidString)/data")
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        try StackDevelopmentKeys.create(for: [.portal], in: directory.path)
        let variables = StackDevelopmentKeys.variables(for: .portal, in: directory.path)
        let keyFile = try #require(variables["PORTAL_SIGNING_KEY_FILE"])
        for file in [keyFile, try #require(variables["TOTP_ENCRYPTION_KEY_FILE"])] {
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        }
        let first = try String(contentsOfFile: keyFile, encoding: .utf8)
        try StackDevelopmentKeys.create(for: [.portal], in: directory.path)
        #expect(try String(contentsOfFile: keyFile, encoding: .utf8) == first)
        let configuration = try PortalConfiguration(TestServices.settings(variables))
        #expect(try PortalSigningKey.load(configuration).privateKey.publicKey == ES256PrivateKey(pem: first).publicKey)
    }

    @Test func anOperatorProvidedKeyIsUsedAsIsAndNoneIsEverMade() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("key-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = ES256PrivateKey()
        let file = directory.appendingPathComponent("mine.pem").path
        try SecretFile.write(key.pemRepresentation, toFile: file)
        let configuration = try PortalConfiguration(TestServices.settings(["PORTAL_SIGNING_KEY_FILE": file]))
        #expect(try PortalSigningKey.load(configuration).publicKeyPEM == key.publicKey.pemRepresentation)
        // A key file that is not there stops the configuration itself.
        #expect(throws: ConfigurationError.self) {
            try PortalConfiguration(TestServices.settings(["PORTAL_SIGNING_KEY_FILE": directory.appendingPathComponent("none.pem").path]))
        }
        // Without the settings, serving stops with the variable's name, and nothing is written anywhere.
        let unset = try PortalConfiguration(TestServices.settings([
            "PORTAL_SIGNING_KEY_FILE": "", "TOTP_ENCRYPTION_KEY_FILE": "", "VERIFICATION_API_TOKEN": "token-of-the-portal-at-verification-0001",
        ]))
        do {
            try unset.checkServing()
            Issue.record("the portal served without a signing key")
        } catch {
            #expect(error.variable == "PORTAL_SIGNING_KEY_FILE")
        }
        let withKey = try PortalConfiguration(TestServices.settings(["PORTAL_SIGNING_KEY_FILE": file, "TOTP_ENCRYPTION_KEY_FILE": ""]))
        do {
            try withKey.checkServing()
            Issue.record("the portal served without a TOTP key")
        } catch {
            #expect(error.variable == "TOTP_ENCRYPTION_KEY")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["mine.pem"])
    }

    @Test func configurationIsValidated() throws {
        let defaults = try PortalConfiguration(TestServices.settings([:]))
        #expect(defaults.listener.port == 8040)
        #expect(defaults.allowedHosts == ["localhost", "127.0.0.1"])
        #expect(!defaults.cookieSecure)
        #expect(defaults.sessionTimeout == .seconds(4 * 3600))
        #expect(defaults.signInThrottle.attempts == 5)
        #expect(defaults.signInThrottle.window == .seconds(900))
        let https = try PortalConfiguration(TestServices.settings(["PUBLIC_URL": "https://portal.example", "HEALTH_AUTHORITIES": "1.01.0.01., 2.02.0.02.=Amt"]))
        #expect(https.cookieSecure)
        #expect(https.allowedHosts.contains("portal.example"))
        #expect(https.healthAuthorities == [HealthAuthority(number: "1.01.0.01."), HealthAuthority(number: "2.02.0.02.", name: "Amt")])
        #expect(throws: ConfigurationError.self) { try PortalConfiguration(TestServices.settings(["HEALTH_AUTHORITIES": "1,1"])) }
        for missingNumber in ["=", "=Amt", " = Amt"] {
            #expect(throws: ConfigurationError.self) { try PortalConfiguration(TestServices.settings(["HEALTH_AUTHORITIES": missingNumber])) }
        }
        #expect(throws: ConfigurationError.self) { try PortalConfiguration(TestServices.settings(["OIDC_ISSUER": "https://idp.example"])) }
        #expect(throws: ConfigurationError.self) { try PortalConfiguration(TestServices.settings(["LOCAL_LOGIN": "false"])) }
        #expect(throws: ConfigurationError.self) { try PortalConfiguration(TestServices.settings(["LOGIN_ATTEMPTS": "0"])) }
        #expect(throws: ConfigurationError.self) { try PortalConfiguration(TestServices.settings(["LOGIN_ATTEMPT_WINDOW": "0s"])) }
    }

    @Test func teleTANsAreGroupedForReadingAloud() {
        #expect(TeleTANGrouping.grouped("FE9A5MAK6C") == "FE9 A5M AK6C")
        #expect(TeleTANGrouping.grouped("ABCDEF") == "ABC DEF")
        #expect(TeleTANGrouping.grouped("ABCDEFGH") == "ABC DEF GH")
    }

    @Test func theLanguageFollowsAcceptLanguage() {
        #expect(Language.preferred(acceptLanguage: nil) == .en)
        #expect(Language.preferred(acceptLanguage: "de") == .de)
        #expect(Language.preferred(acceptLanguage: "de-AT,en;q=0.5") == .de)
        #expect(Language.preferred(acceptLanguage: "en-GB,de;q=0.9") == .en)
        #expect(Language.preferred(acceptLanguage: "es, de;q=0.3, en;q=0.2") == .de)
        #expect(Language.preferred(acceptLanguage: "fr-CA, en;q=0.5") == .fr)
        #expect(Language.preferred(acceptLanguage: "pl-PL,pl;q=0.9,en;q=0.8") == .pl)
        #expect(Language.preferred(acceptLanguage: "de;q=0, en") == .en)
    }

    /// `users list --json` and `audit --json`: one JSON document with the rows of the table, every key in every row.
    @Test(arguments: TestDatabase.all)
    func theListsAsJSONHaveTheRowsOfTheirTables(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            #expect(try await h.users(["list", "--json"]) == #"{"users":[]}"#)
            #expect(try await h.audit(["--json"]) == #"{"entries":[]}"#)
            try await h.users(["add", "anna", "--roles", "c19hotline_event,c19hotline"])
            try await h.users(["add", "bert", "--roles", "c19hotline"])
            try await h.users(["disable", "bert"])
            let log = AuditLog(database: h.database)
            try await log.record(AuditEntry(officer: "anna", source: .local, occurredAt: 1_750_000_000, kind: .test, healthAuthority: nil, outcome: .issued, authority: "default"))
            try await log.record(AuditEntry(officer: "x@idp", source: .oidc, occurredAt: 1_750_000_060, kind: .event, healthAuthority: "1.08.2.12.", outcome: .refused, authority: "default"))

            let users = try #require(try JSONSerialization.jsonObject(with: Data(try await h.users(["list", "--json"]).utf8)) as? [String: Any])
            let userRows = try #require(users["users"] as? [[String: Any]])
            let userLines = try await h.users(["list"]).split(separator: "\n").dropFirst().map { $0.split(separator: "\t").map(String.init) }
            try #require(userRows.count == 2 && userLines.count == 2)
            for (row, line) in zip(userRows, userLines) {
                #expect(Set(row.keys) == ["name", "authority", "roles", "createdAt", "state", "disabledAt"])
                let disabledAt = row["disabledAt"] as? String
                #expect(line == [
                    row["name"] as? String ?? "?", (row["roles"] as? [String] ?? []).joined(separator: ","),
                    "created \(row["createdAt"] as? String ?? "?")", disabledAt.map { "disabled \($0)" } ?? "active", row["authority"] as? String ?? "-",
                ])
                #expect(row["state"] as? String == (disabledAt == nil ? "active" : "disabled"))
            }
            #expect(userRows.first?["roles"] as? [String] == ["c19hotline", "c19hotline_event"])
            #expect(userRows.first?["disabledAt"] is NSNull)

            let audit = try #require(try JSONSerialization.jsonObject(with: Data(try await h.audit(["--json", "--limit", "5"]).utf8)) as? [String: Any])
            let entries = try #require(audit["entries"] as? [[String: Any]])
            let auditLines = try await h.audit(["--limit", "5"]).split(separator: "\n").dropFirst().map { $0.split(separator: "\t").map(String.init) }
            try #require(entries.count == 2 && auditLines.count == 2)
            for (entry, line) in zip(entries, auditLines) {
                #expect(Set(entry.keys) == ["time", "source", "officer", "type", "healthAuthority", "outcome", "authority"])
                #expect(line == [
                    entry["time"] as? String ?? "?", "\(entry["source"] as? String ?? "?"):\(entry["officer"] as? String ?? "?")",
                    entry["type"] as? String ?? "?", entry["healthAuthority"] as? String ?? "-", entry["outcome"] as? String ?? "?",
                    entry["authority"] as? String ?? "-",
                ])
            }
            #expect(entries.map { $0["officer"] as? String } == ["x@idp", "anna"])
            #expect(entries.last?["healthAuthority"] is NSNull)
            let latest = try await h.audit(["--json", "--limit", "1"])
            #expect(latest.contains("x@idp") && !latest.contains("anna"))
        }
    }
}
