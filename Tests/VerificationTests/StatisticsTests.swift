import ExposureCore
import ExposureStatistics
import ExposureTestSupport
import Foundation
import Testing
@testable import Verification
@testable import VerificationDomain

/// Verification's daily statistics: counted in memory by real requests only, flushed by every replica into one table,
/// served on the management listener to readers, app-side figures for finished days only (docs/statistics.md).
@Suite struct StatisticsTests {
    static let path = "/version/v1/statistics"
    static let reader = [("Authorization", "Bearer \(TestServiceTokens.statisticsReader)")]
    /// Flushes every second, so that a test sees its counts soon.
    static let settings = ["STATISTICS_FLUSH_INTERVAL": "1s"]

    @Test(arguments: TestDatabase.all)
    func teleTANsAreCountedInTotalAndPerOfficerAndServedForToday(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: Self.settings) { h in
            for subject in ["officer-1", "officer-1", "officer-2"] {
                let token = try await h.officerToken(roles: ["c19hotline"], subject: subject)
                try #require(try await h.createTeleTAN(token: token).status == 201)
            }
            // Refused requests count nothing.
            _ = try await h.createTeleTAN(token: nil)
            let today = StatisticsDay(of: h.clock.now())
            let expected = [
                "teletans_issued": 3, "teletans_issued_by_officer/officer-1": 2, "teletans_issued_by_officer/officer-2": 1,
                "teletans_issued_by_authority/default": 3,
            ]
            // Until a flush has stored them all (a count too high or one too many never matches).
            let counts = try await Self.eventually(h, from: today, to: today) { $0 == expected }
            #expect(counts == expected)
        }
    }

    @Test(arguments: TestDatabase.all)
    func appSideFiguresAreServedForFinishedDaysOnlyAndFakesCountNothing(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: Self.settings) { h in
            let guid = VerificationHarness.hashedGUID()
            try await h.labPosts(guid, result: 2)
            let token = try #require(try await h.register(guid: guid).json["registrationToken"] as? String)
            let tan = try #require(try await h.tan(token).json["tan"] as? String)
            try #require(try await h.verify(tan).status == 200)
            // Fake requests of every kind an app sends, answered as real ones are: none of them counts.
            for _ in 0..<3 {
                try #require(try await h.register(guid: VerificationHarness.hashedGUID(), fake: "1").status == 201)
                try #require(try await h.tan(Codes.uuidV4(using: SystemRandomSource()), fake: "1").status == 201)
            }
            let today = StatisticsDay(of: h.clock.now())
            let store = DailyStatisticsStore(database: h.database, service: "verification")
            try await Self.waitFor { try await store.counts(from: today, through: today).count == 3 }
            #expect(try await store.counts(from: today, through: today).map { "\($0.figure)/\($0.breakdown)=\($0.count)" } == [
                "registrations/guid=1", "tans_issued/=1", "tans_redeemed/=1",
            ])
            // Today's app-side counts are stored but not served: polling the API cannot time one request.
            #expect(try await Self.counts(h, from: today, to: today).isEmpty)
            h.clock.advance(by: 86400)
            #expect(try await Self.counts(h, from: today, to: today) == ["registrations/guid": 1, "tans_issued": 1, "tans_redeemed": 1])
        }
    }

    @Test(arguments: TestDatabase.all)
    func replicasAddUpAndARestartedReplicaServesWhatWasFlushed(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: Self.settings) { h in
            let today = StatisticsDay(of: h.clock.now())
            try #require(try await h.createTeleTAN(token: try await h.officerToken(roles: ["c19hotline"])).status == 201)
            // A second replica on the same database, with a flush interval longer than the test: what it counted
            // reaches the database when it stops.
            try await h.withAnotherVerification(environment: ["STATISTICS_FLUSH_INTERVAL": "1h"]) { replica in
                for _ in 0..<2 {
                    try #require(try await replica.createTeleTAN(token: try await h.officerToken(roles: ["c19hotline"], subject: "officer-2")).status == 201)
                }
            }
            _ = try await Self.eventually(h, from: today, to: today) { $0["teletans_issued"] == 3 }
            // A replica started afterwards (a restart) serves the same counts from the database.
            try await h.withAnotherVerification(environment: [:]) { restarted in
                let served = try await Self.counts(restarted, from: today, to: today)
                #expect(served["teletans_issued"] == 3)
            }
        }
    }

    @Test(arguments: TestDatabase.all)
    func readersOnlyAndValidRangesOnly(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            let query = "\(Self.path)?from=2026-11-01&to=2026-11-27"
            let missing = try await h.management.get(query)
            Covers.status(401, of: "GET /version/v1/statistics", missing, error: "unknown_reader")
            let wrong = try await h.management.get(query, headers: [("Authorization", "Bearer \(TestServiceTokens.tests)")])
            Covers.status(401, of: "GET /version/v1/statistics", wrong, error: "unknown_reader")
            // A service token is not a reader's token, and a reader's token in the service-token header is none.
            let misplaced = try await h.management.get(query, headers: [("X-Service-Token", TestServiceTokens.statisticsReader)])
            Covers.status(401, of: "GET /version/v1/statistics", misplaced, error: "unknown_reader")
            for range in ["from=2026-11-27&to=2026-11-01", "from=2026-02-30&to=2026-03-01", "from=yesterday&to=2026-11-27",
                          "from=2025-01-01&to=2026-01-02", "from=2026-11-01&to=2026-11-27&format=xml", "from=2026-11-01"] {
                let answer = try await h.management.get("\(Self.path)?\(range)", headers: Self.reader)
                Covers.status(400, of: "GET /version/v1/statistics", answer)
            }
            let bad = try await h.management.get("\(Self.path)?from=2026-11-27&to=2026-11-01", headers: Self.reader)
            #expect(bad.json["error"] as? String == "invalid_range")
            let ok = try await h.management.get("\(Self.path)?from=2025-01-01&to=2026-01-01", headers: Self.reader)
            Covers.status(200, of: "GET /version/v1/statistics", ok)
            #expect(ok.json["service"] as? String == "verification")
            #expect(ok.json["counts"] as? [Any] != nil)
        }
    }

    @Test(arguments: TestDatabase.all)
    func aDatabaseFailureIs500AndLosesNoCounts(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: Self.settings) { h in
            let today = StatisticsDay(of: h.clock.now())
            try await FailureInjection.withoutTable("verification_daily_counts", in: h.database) {
                let failed = try await h.management.get("\(Self.path)?from=\(today)&to=\(today)", headers: Self.reader)
                Covers.status(500, of: "GET /version/v1/statistics", failed, error: "internal_error")
                // Counted while the table is gone: the flush fails and keeps the count for the next one.
                try #require(try await h.createTeleTAN(token: try await h.officerToken(roles: ["c19hotline"])).status == 201)
                try await Task.sleep(for: .milliseconds(1500))
            }
            _ = try await Self.eventually(h, from: today, to: today) { $0["teletans_issued"] == 1 }
        }
    }

    @Test(arguments: TestDatabase.all)
    func csvHasOneLinePerCount(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: Self.settings) { h in
            try #require(try await h.createTeleTAN(token: try await h.officerToken(roles: ["c19hotline"], subject: "anna, of \"B\"")).status == 201)
            let today = StatisticsDay(of: h.clock.now())
            _ = try await Self.eventually(h, from: today, to: today) { $0["teletans_issued"] == 1 && $0["teletans_issued_by_authority/default"] == 1 }
            let csv = try await h.management.get("\(Self.path)?from=\(today)&to=\(today)&format=csv", headers: Self.reader)
            #expect(csv.status == 200)
            #expect(csv.header("Content-Type")?.hasPrefix("text/csv") == true)
            #expect(csv.text == "day,figure,breakdown,count\r\n\(today),teletans_issued,,1\r\n\(today),teletans_issued_by_authority,default,1\r\n\(today),teletans_issued_by_officer,\"anna, of \"\"B\"\"\",1\r\n")
        }
    }

    // MARK: Helpers

    /// The served counts of the range, as `figure` or `figure/breakdown` → count.
    static func counts(_ h: VerificationHarness, from: StatisticsDay, to: StatisticsDay) async throws -> [String: Int] {
        let answer = try await h.management.get("\(path)?from=\(from)&to=\(to)", headers: reader)
        try #require(answer.status == 200, "\(answer.status) \(answer.text)")
        var counts: [String: Int] = [:]
        for row in try #require(answer.json["counts"] as? [[String: Any]]) {
            let breakdown = row["breakdown"] as? String ?? ""
            let key = breakdown.isEmpty ? "\(row["figure"]!)" : "\(row["figure"]!)/\(breakdown)"
            counts[key, default: 0] += row["count"] as? Int ?? 0
        }
        return counts
    }

    /// The served counts once `condition` holds of them (the flush runs every second).
    static func eventually(
        _ h: VerificationHarness, from: StatisticsDay, to: StatisticsDay, _ condition: ([String: Int]) -> Bool
    ) async throws -> [String: Int] {
        var last: [String: Int] = [:]
        try await waitFor {
            last = try await counts(h, from: from, to: to)
            return condition(last)
        }
        return last
    }

    /// Until the recorder's flush (every second) stored the counts; `pollUntil`'s limit only ends a hang.
    static func waitFor(_ condition: () async throws -> Bool) async throws {
        try await pollUntil(condition)
    }
}
