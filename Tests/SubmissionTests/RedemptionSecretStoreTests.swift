import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Submission
@testable import SubmissionCore

/// `RedemptionSecretStore`: replicas sharing a database share one secret, whoever starts first.
@Suite struct RedemptionSecretStoreTests {
    @Test(arguments: TestDatabase.all)
    func replicasStartingTogetherOrLaterGetTheFirstSecret(kind: TestDatabase) async throws {
        try await kind.withFreshDatabase { database in
            try await SubmissionMigrations.migrator.migrate(database, logger: TestLogger.quiet)
            let store = RedemptionSecretStore(database: database)
            // Eight replicas starting at once, each with a random source of its own.
            let secrets = try await withThrowingTaskGroup(of: [UInt8].self) { group in
                for seed in 1...8 {
                    group.addTask { try await store.secret(random: SeededRandomSource(seed: UInt64(seed))) }
                }
                return try await group.reduce(into: [[UInt8]]()) { $0.append($1) }
            }
            #expect(Set(secrets).count == 1)
            let secret = try #require(secrets.first)
            #expect(secret.count == 64)
            #expect(Set(secret).count > 8, "32 random bytes in hex")
            let later = try await store.secret(random: SeededRandomSource(seed: 99))
            #expect(later == secret)
        }
    }
}
