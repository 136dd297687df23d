import ExposureCore
import ExposureStatistics
import ExposureTestSupport
import Foundation
import SQLKit
import Testing
@testable import Verification
@testable import VerificationDomain

/// Issue #58, item 1: a health-authority system's token is no licence to mint codes without end. Each issuer has its
/// own limits per clock hour and per UTC day (`ISSUER_CODES_PER_HOUR`, `ISSUER_CODES_PER_DAY`), counted in the database
/// so that concurrent calls on any replica never pass them; beyond, 429 in the family's own form, nothing issued.
/// Every issuance is counted per issuer in the daily statistics and leaves an audit row without a code.
@Suite struct IssuerLimitTests {
    static let limits = ["ISSUER_CODES_PER_HOUR": "3", "ISSUER_CODES_PER_DAY": "5", "STATISTICS_FLUSH_INTERVAL": "1s"]

    @Test(arguments: TestDatabase.all)
    func newKeyClaimStopsAtTheIssuersHourAndDayWithTheReferencesWords(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: Self.limits) { h in
            let token = try await h.addIssuer("ontario-ha", kind: "covidshield")
            let other = try await h.addIssuer("quebec-ha", kind: "covidshield", region: "QC")
            for _ in 0..<3 { #expect(try await h.newKeyClaim(token: token).status == 200) }
            let limited = try await h.newKeyClaim(token: token)
            Covers.status(429, of: "POST /new-key-claim", limited.as(.plainText), error: "too many requests")
            #expect(limited.text == "too many requests\n" && limited.header("Content-Type") == "text/plain; charset=utf-8")
            // 2025-06-15 15:06:40 UTC: the hour ends in 53 minutes 20 seconds.
            #expect(limited.header("Retry-After") == "3200")
            // Another issuer has its own allowance.
            #expect(try await h.newKeyClaim(token: other).status == 200)
            // The next hour: two more, then the day's five are used up until midnight.
            h.clock.advance(by: 3600)
            for _ in 0..<2 { #expect(try await h.newKeyClaim(token: token).status == 200) }
            let daily = try await h.newKeyClaim(token: token)
            #expect(daily.status == 429 && daily.header("Retry-After") == "\(86400 - (16 * 3600 + 400))")
            #expect(try await h.rows("one_time_codes") == 6)
        }
    }

    @Test(arguments: TestDatabase.all)
    func callableFunctionsStopAtTheIssuersLimitAsFirebaseDoes(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: Self.limits) { h in
            let token = try await h.addIssuer("gis-pl", kind: "protego")
            // A batch that would pass the hour issues nothing.
            let tooMany = try await h.callable("/generateCodesBatch", #"{"data":{"numberOfCodes":4,"duration":3600}}"#, token: token)
            Covers.status(429, of: "POST /generateCodesBatch", tooMany.as(.firebaseCallable), error: "RESOURCE_EXHAUSTED")
            #expect((tooMany.json["error"] as? [String: Any])?["status"] as? String == "RESOURCE_EXHAUSTED")
            #expect(tooMany.header("Retry-After") == "3200")
            #expect(try await h.rows("one_time_codes") == 0)
            let batch = try await h.callable("/generateCodesBatch", #"{"data":{"numberOfCodes":3,"duration":3600}}"#, token: token)
            #expect((batch.json["result"] as? [String])?.count == 3)
            let single = try await h.callable("/generateCode", #"{"data":{}}"#, token: token)
            Covers.status(429, of: "POST /generateCode", single.as(.firebaseCallable), error: "RESOURCE_EXHAUSTED")
            #expect(single.text == #"{"error":{"message":"Too many codes issued; try again later.","status":"RESOURCE_EXHAUSTED"}}"#)
            #expect(try await h.rows("one_time_codes") == 3)
        }
    }

    /// Fifty concurrent calls of one issuer at a limit of ten: exactly ten codes, whichever connection each took.
    @Test(arguments: TestDatabase.all)
    func fiftyConcurrentCallsOfOneIssuerIssueExactlyItsLimit(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: ["ISSUER_CODES_PER_HOUR": "10"]) { h in
            let token = try await h.addIssuer("gis-pl", kind: "protego")
            let answers = try await h.race { try await $0.callable("/generateCode", #"{"data":{}}"#, token: token).status }
            #expect(answers.filter { $0 == 200 }.count == 10)
            #expect(answers.filter { $0 == 429 }.count == 40)
            #expect(try await h.rows("one_time_codes") == 10)
            #expect(try await h.rows("code_issuance_audit") == 10)
        }
    }

    /// Issue #60, limits per authority: an authority holds each of its issuer keys to fewer codes than the
    /// installation allows, never to more; a change counts from the next call, within the same hour.
    @Test(arguments: TestDatabase.all)
    func anAuthorityHoldsEachOfItsIssuerKeysBelowTheInstallationsLimit(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: ["ISSUER_CODES_PER_HOUR": "5"]) { h in
            try await h.addAuthority("north", codesPerIssuerKeyHour: 2)
            try await h.addAuthority("south", codesPerIssuerKeyHour: 50)
            let north = try await h.addIssuer("north-ha", kind: "covidshield", authority: "north")
            let northToo = try await h.addIssuer("north-lab", kind: "covidshield", authority: "north")
            let south = try await h.addIssuer("south-ha", kind: "covidshield", authority: "south")
            let national = try await h.addIssuer("ontario-ha", kind: "covidshield")
            for _ in 0..<2 { #expect(try await h.newKeyClaim(token: north).status == 200) }
            let limited = try await h.newKeyClaim(token: north)
            #expect(limited.status == 429 && limited.text == "too many requests\n" && limited.header("Retry-After") == "3200")
            // The limit is each key's, not the authority's together.
            for _ in 0..<2 { #expect(try await h.newKeyClaim(token: northToo).status == 200) }
            // An authority's higher limit does not lift the installation's, and the default authority has none of its own.
            for token in [south, national] {
                for _ in 0..<5 { #expect(try await h.newKeyClaim(token: token).status == 200) }
                #expect(try await h.newKeyClaim(token: token).status == 429)
            }
            // Raised to 3 within the hour: one more for the key that used 2.
            let store = AuthorityStore(database: h.database)
            var settings = try #require(try await store.authority(id: "north")).settings
            settings.issuerCodesPerHour = 3
            _ = try await store.change(id: "north", to: settings, now: h.clock.now())
            #expect(try await h.newKeyClaim(token: north).status == 200)
            #expect(try await h.newKeyClaim(token: north).status == 429)
            #expect(try await h.rows("one_time_codes") == 2 + 2 + 5 + 5 + 1)
        }
    }

    /// Fifty concurrent calls of one key at its authority's limit of ten, under an installation's of a thousand.
    @Test(arguments: TestDatabase.all)
    func fiftyConcurrentCallsOfOneKeyIssueExactlyItsAuthoritysLimit(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind) { h in
            try await h.addAuthority("north", codesPerIssuerKeyHour: 10)
            let token = try await h.addIssuer("north-pl", kind: "protego", authority: "north")
            let answers = try await h.race { try await $0.callable("/generateCode", #"{"data":{}}"#, token: token).status }
            #expect(answers.filter { $0 == 200 }.count == 10)
            #expect(answers.filter { $0 == 429 }.count == 40)
            #expect(try await h.rows("one_time_codes") == 10)
            #expect(try await h.rows("code_issuance_audit") == 10)
        }
    }

    @Test func anAuthoritysKeyLimitIsTheLowerOfItsOwnAndTheInstallations() {
        let installation = IssuerRateLimit(perHour: 100, perDay: 500)
        let limit = { (hour: Int?, day: Int?) in
            Authority(id: "a", settings: .init(name: "A", issuerCodesPerHour: hour, issuerCodesPerDay: day), createdAt: 0).issuerLimit(within: installation)
        }
        #expect(limit(nil, nil) == installation)
        #expect(limit(10, nil) == IssuerRateLimit(perHour: 10, perDay: 500))
        #expect(limit(1000, 20) == IssuerRateLimit(perHour: 100, perDay: 20))
    }

    /// Who issued what kind, how many, when; never a code. And the daily count per issuer.
    @Test(arguments: TestDatabase.all)
    func everyIssuanceLeavesAnAuditRowAndIsCountedPerIssuer(kind: TestDatabase) async throws {
        try await VerificationHarness.run(on: kind, environment: Self.limits) { h in
            let proteGO = try await h.addIssuer("gis-pl", kind: "protego")
            let covidShield = try await h.addIssuer("ontario-ha", kind: "covidshield")
            let pins = try #require(try await h.callable("/generateCodesBatch", #"{"data":{"numberOfCodes":2,"duration":1800}}"#, token: proteGO).json["result"] as? [String])
            let code = String(try await h.newKeyClaim(token: covidShield).text.dropLast())
            // Refused calls leave nothing.
            _ = try await h.callable("/generateCodesBatch", #"{"data":{"numberOfCodes":3,"duration":1800}}"#, token: proteGO)
            let rows = try await h.database.withConnection { connection in
                try await connection.raw("SELECT issuer, kind, region, count, issued_at FROM code_issuance_audit ORDER BY issuer").all()
            }
            let audit = try rows.map {
                [try $0.decode(column: "issuer", as: String.self), try $0.decode(column: "kind", as: String.self),
                 try $0.decode(column: "region", as: String.self), String(try $0.decode(column: "count", as: Int.self)),
                 String(try $0.decode(column: "issued_at", as: Int64.self))]
            }
            let now = String(h.clock.now().epochSeconds)
            #expect(audit == [["gis-pl", "PROTEGO", "PL", "2", now], ["ontario-ha", "COVIDSHIELD", "ON", "1", now]])
            for value in audit.joined() { #expect(!pins.contains(value) && value != code) }
            let today = StatisticsDay(of: h.clock.now())
            let expected = [
                "codes_issued_by_issuer/gis-pl": 2, "codes_issued_by_issuer/ontario-ha": 1, "codes_issued_by_authority/default": 3,
                "codes_issued/protego": 2, "codes_issued/covidshield": 1,
            ]
            // Every count awaited: the issuances may fall on either side of a flush.
            let counts = try await StatisticsTests.eventually(h, from: today, to: today) { counts in
                expected.allSatisfy { counts[$0.key] == $0.value }
            }
            #expect(counts == expected)
        }
    }

    @Test func countersAreTheIssuersHourAndDay() {
        let counters = IssuerRateLimit(perHour: 7, perDay: 9).counters(issuer: "a", now: Date(timeIntervalSince1970: 1_750_000_000))
        #expect(counters.map(\.scope) == ["issuer-hour:a", "issuer-day:a"])
        #expect(counters.map(\.limit) == [7, 9])
        #expect(counters.map(\.windowStart) == [1_749_999_600, 1_749_945_600])
        #expect(counters.map(\.windowEnd) == [1_750_003_200, 1_750_032_000])
    }
}
