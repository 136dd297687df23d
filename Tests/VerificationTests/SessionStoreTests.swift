import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification

/// Session reads, which concurrent polls share in batched queries.
@Suite struct SessionStoreTests {
    @Test(arguments: TestDatabase.all)
    func concurrentReadsEachGetTheirOwnSession(kind: TestDatabase) async throws {
        try await kind.withFreshDatabase { database in
            try await VerificationMigrations.migrator.migrate(database, logger: TestLogger.quiet)
            let store = SessionStore(database: database)
            let now = Date(timeIntervalSince1970: 1_750_000_000)
            for n in 0..<200 {
                let dob = n.isMultiple(of: 5) ? SecretHash.sha256Hex("dob-\(n)") : nil
                let outcome = try await store.registerGUID(SecretHash.sha256Hex("guid-\(n)"), dobHash: dob, tokenHash: SecretHash.sha256Hex("token-\(n)"), now: now)
                try #require(outcome == .registered)
            }
            // 200 registered and 100 unknown tokens, each asked twice, all at once.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in Array(0..<300) + Array(0..<300) {
                    group.addTask {
                        let session = try await store.session(tokenHash: SecretHash.sha256Hex("token-\(n)"))
                        if n < 200 {
                            #expect(session?.source == .guid)
                            #expect(session?.hashedGUID == SecretHash.sha256Hex("guid-\(n)"))
                            #expect(session?.dobHash == (n.isMultiple(of: 5) ? SecretHash.sha256Hex("dob-\(n)") : nil))
                            #expect(session?.createdAt == 1_750_000_000)
                        } else {
                            #expect(session == nil)
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    @Test(arguments: TestDatabase.all)
    func aReadAfterARegistrationSeesIt(kind: TestDatabase) async throws {
        try await kind.withFreshDatabase { database in
            try await VerificationMigrations.migrator.migrate(database, logger: TestLogger.quiet)
            let store = SessionStore(database: database)
            let token = SecretHash.sha256Hex("token-late")
            #expect(try await store.session(tokenHash: token) == nil)
            try #require(try await store.registerGUID(SecretHash.sha256Hex("guid-late"), dobHash: nil, tokenHash: token, now: Date()) == .registered)
            #expect(try await store.session(tokenHash: token)?.hashedGUID == SecretHash.sha256Hex("guid-late"))
        }
    }
}
