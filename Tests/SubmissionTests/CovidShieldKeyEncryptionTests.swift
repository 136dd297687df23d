import ExposureCore
import ExposureTestSupport
import Foundation
import SQLKit
import Testing

@testable import Submission
@testable import SubmissionCore
@testable import SubmissionCovidShield
@testable import SubmissionDomain

/// The key sealing CovidShield key pairs never lives in the database it protects. Earlier versions generated one into
/// `service_secrets` when `COVIDSHIELD_KEY_ENCRYPTION_KEY` was unset, so a copy of the database opened every pair;
/// now serving needs the setting, and the first start with it moves the pairs under it and deletes the generated key.
@Suite struct CovidShieldKeyEncryptionTests {
    static let configuredKey = [UInt8](repeating: 0x5a, count: 32)

    @Test(arguments: TestDatabase.all)
    func aKeyKeptInTheDatabaseIsReplacedByTheConfiguredOneAndDeleted(kind: TestDatabase) async throws {
        // The harness seals under CovidShieldWire.encryptionKey: play an older version that generated it into the
        // database.
        try await SubmissionHarness.runCovidShield(kind) { harness in
            let pair = try await harness.claimPair()
            let generated = CovidShieldWire.encryptionKey.hexString
            try await harness.database.withConnection { connection in
                try await connection.raw("""
                    INSERT INTO service_secrets (name, value) VALUES (\(bind: CovidShieldKeyPairStore.generatedKeyEncryptionKeyRow), \(bind: generated))
                    """).run()
            }
            let store = CovidShieldKeyPairStore(database: harness.database)
            let configured = SecretSealer(key: Self.configuredKey)
            #expect(try await store.resealPairsUnderConfiguredKey(configured) == 1)
            let rows = try await harness.database.withConnection { connection in
                (
                    try await connection.raw("SELECT sealed_secret_key FROM covidshield_key_pairs").all(),
                    try await connection.raw("SELECT value FROM service_secrets").all().map { try $0.decode(column: "value", as: String.self) }
                )
            }
            // The generated key is gone, and the pair opens under the configured key only.
            #expect(!rows.1.contains(generated))
            let sealed = Array(try rows.0[0].decode(column: "sealed_secret_key", as: Data.self))
            #expect(try configured.open(sealed, belongingTo: pair.server).count == 32)
            #expect(throws: (any Error).self) { try SecretSealer(key: CovidShieldWire.encryptionKey).open(sealed, belongingTo: pair.server) }
            // A second start finds nothing to move.
            #expect(try await store.resealPairsUnderConfiguredKey(configured) == 0)
        }
    }

    /// Without the setting the service does not serve: it never generates the key (before, it generated one into the
    /// database and only warned).
    @Test(arguments: TestDatabase.all)
    func withoutAKeyEncryptionKeyTheServiceDoesNotStart(kind: TestDatabase) async throws {
        try await kind.withFreshDatabaseURL { url in
            let configuration = try SubmissionConfiguration(TestServices.settings([
                "DATABASE_URL": url.connectionString, "COVIDSHIELD_KEY_ENCRYPTION_KEY_FILE": "", "PORT": "0", "BIND_HOST": "127.0.0.1",
            ]))
            #expect(throws: CovidShieldConfiguration.keyEncryptionKeyMissing) { try configuration.checkServing() }
            await #expect(throws: CovidShieldConfiguration.keyEncryptionKeyMissing) {
                _ = try await SubmissionService.makeBundle(configuration, environment: TestServices.environment())
            }
            let database = try await Database.connect(url, poolSize: 1, logger: TestLogger.quiet)
            let secrets = try await database.withConnection { connection in
                try await connection.raw("SELECT name FROM service_secrets").all().map { try $0.decode(column: "name", as: String.self) }
            }
            await database.shutdown()
            #expect(!secrets.contains(CovidShieldKeyPairStore.generatedKeyEncryptionKeyRow))
        }
    }
}
