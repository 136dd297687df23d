import ExposureCore
import ExposureTestSupport
import Foundation
import SQLKit
import Testing
@testable import Verification
@testable import VerificationDomain

/// Issue #60, item 1: an installation of before health authorities migrates into one authority, `default`, which may
/// issue every family for every region with no limits of its own: nothing is lost, every issuer belongs to it.
@Suite struct AuthorityMigrationTests {
    @Test(arguments: TestDatabase.all)
    func anExistingInstallationMigratesIntoTheDefaultAuthority(kind: TestDatabase) async throws {
        try await kind.withFreshDatabase { database in
            // The schema of before this change: every migration up to the one that adds authorities.
            let before = VerificationMigrations.all.filter { $0.version < 11 }
            #expect(before.map(\.version) == Array(1...10))
            try await Migrator(service: "verification", migrations: before).migrate(database, logger: TestLogger.quiet)
            try await database.withConnection { connection in
                for (name, kind) in [("ontario-ha", "COVIDSHIELD"), ("gis-pl", "PROTEGO")] {
                    try await connection.raw("""
                        INSERT INTO code_issuers (name, token_hash, kind, region, created_at)
                        VALUES (\(bind: name), \(bind: SecretHash.sha256Hex(name)), \(bind: kind), 'ON', 1750000000)
                        """).run()
                }
                for n in 0..<3 {
                    try await connection.raw("""
                        INSERT INTO teletans (teletan_hash, hash_key_id, type, valid_until, created_at, redeemed_at)
                        VALUES (\(bind: SecretHash.sha256Hex("teletan-\(n)")), 'k1', 'TEST', 1750003600, 1750000000, NULL)
                        """).run()
                }
                try await connection.raw("""
                    INSERT INTO teletan_issuance_counts (scope, window_start, issued) VALUES ('global', 1749999600, 3)
                    """).run()
            }

            try await VerificationMigrations.migrator.migrate(database, logger: TestLogger.quiet)

            let issuers = try await IssuerStore(database: database).list()
            #expect(issuers.map(\.issuer.name) == ["gis-pl", "ontario-ha"])
            #expect(issuers.allSatisfy { $0.issuer.authority == Authority.defaultID })
            let rows = try await database.withConnection { connection in
                (
                    try await connection.raw("SELECT COUNT(*) AS n FROM teletans").first()!.decode(column: "n", as: Int.self),
                    try await connection.raw("SELECT issued FROM teletan_issuance_counts WHERE scope = 'global'").first()!.decode(column: "issued", as: Int.self)
                )
            }
            #expect(rows.0 == 3 && rows.1 == 3)
            let authorities = try await AuthorityStore(database: database).list()
            #expect(authorities.count == 1)
            let only = try #require(authorities.first)
            #expect(only.id == "default")
            #expect(only.settings == AuthoritySettings(name: "Default health authority", regions: [], families: [.cwa, .covidShield, .proteGO]))
            #expect(only.createdAt > 1_700_000_000)
            // The issuers' authority lets them issue what they did.
            for issuer in issuers { #expect(only.issues(AppFamily(issuer.issuer.kind)) && only.serves(region: issuer.issuer.region)) }
        }
    }

    /// The store keeps what it is given, refuses a second authority of one id, and disabling keeps the settings.
    @Test(arguments: TestDatabase.all)
    func theStoreKeepsSettingsAndRefusesADuplicateID(kind: TestDatabase) async throws {
        try await kind.withFreshDatabase { database in
            try await VerificationMigrations.migrator.migrate(database, logger: TestLogger.quiet)
            let store = AuthorityStore(database: database)
            let now = Date(timeIntervalSince1970: 1_750_000_000)
            let settings = AuthoritySettings(
                name: "Toronto PH", regions: ["ON", "QC"], families: [.covidShield], teleTANsPerHour: 10, teleTANsPerDay: 50,
                issuerCodesPerHour: 20, issuerCodesPerDay: 60
            )
            let created = try #require(try await store.create(id: "toronto", settings: settings, now: now))
            #expect(created == Authority(id: "toronto", settings: settings, createdAt: 1_750_000_000))
            #expect(try await store.create(id: "toronto", settings: AuthoritySettings(name: "Other"), now: now) == nil)
            let disabled = try #require(try await store.setDisabled(id: "toronto", true, now: now.addingTimeInterval(60)))
            #expect(disabled.settings.disabled && disabled.settings.regions == ["ON", "QC"] && disabled.settings.teleTANsPerHour == 10)
            #expect(disabled.settings.issuerCodesPerHour == 20 && disabled.settings.issuerCodesPerDay == 60)
            var changed = settings
            changed.issuerCodesPerHour = nil
            #expect(try await store.change(id: "toronto", to: changed, now: now)?.settings == changed)
            #expect(!disabled.issues(.covidShield))
            #expect(try await store.setDisabled(id: "nowhere", true, now: now) == nil)
            #expect(try await store.authorities(ids: ["toronto", "default", "nowhere"]).map(\.id) == ["default", "toronto"])
            #expect(try await store.list().map(\.id) == ["default", "toronto"])
        }
    }
}
