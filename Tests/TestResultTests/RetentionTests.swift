import ExposureCore
import ExposureTestSupport
import Foundation
import SQLKit
@testable import TestResultDomain
import Testing
@testable import TestResult

@Suite struct RetentionTests {
    @Test(arguments: TestDatabase.all)
    func oldResultsAreRedeemedThenDeleted(kind: TestDatabase) async throws {
        try await TestResultHarness.run(on: kind) { h in
            let pcr = TestResultHarness.guid(1)
            let quick = TestResultHarness.guid(2)
            try #require(try await h.post(results: [["id": pcr, "result": 2]]).status == 204)
            try #require(try await h.post("/api/v1/quicktest/results", results: [["id": quick, "result": 7]]).status == 204)
            h.clock.advance(by: 10 * 86400)
            let fresh = TestResultHarness.guid(3)
            try #require(try await h.post(results: [["id": fresh, "result": 1]]).status == 204)

            let store = TestResultStore(database: h.database)
            let policy = RetentionPolicy()
            h.clock.advance(by: 11 * 86400 + 60)  // 21 days and a minute after the first two
            let first = try await store.applyRetention(policy, now: h.clock.now())
            #expect(first.redeemed == 2 && first.deleted == 0)
            try #require(try await h.query(pcr).json["testResult"] as? Int == 4)
            try #require(try await h.query(quick).json["testResult"] as? Int == 9)
            try #require(try await h.query(fresh).json["testResult"] as? Int == 1)

            let again = try await store.applyRetention(policy, now: h.clock.now())
            #expect(again.redeemed == 0 && again.deleted == 0)

            h.clock.advance(by: 39 * 86400)  // 60 days after the first two
            let last = try await store.applyRetention(policy, now: h.clock.now())
            #expect(last.deleted == 2)
            try #require(try await h.count() == 1)
            // A deleted id is unknown again: pending, and still nothing written.
            try #require(try await h.query(pcr).json["testResult"] as? Int == 0)
            try #require(try await h.count() == 1)
        }
    }

    @Test func policyCutoffs() {
        let policy = RetentionPolicy(redeemAfter: .seconds(100), deleteAfter: .seconds(1000))
        let now = Date(timeIntervalSince1970: 10_000)
        #expect(policy.redeemCutoff(now: now) == 9_900)
        #expect(policy.deleteCutoff(now: now) == 9_000)
    }

    @Test func configurationRejectsDeletionBeforeRedemption() {
        #expect(throws: ConfigurationError.self) {
            _ = try TestResultConfiguration(TestServices.settings(["RESULT_REDEEM_AFTER": "30d", "RESULT_DELETE_AFTER": "20d"]))
        }
        #expect(throws: ConfigurationError.self) {
            _ = try TestResultConfiguration(TestServices.settings(["MAX_BATCH_SIZE": "0"]))
        }
    }
}
