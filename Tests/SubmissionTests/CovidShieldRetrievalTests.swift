import ExposureCore
import ExposureProtocol
import ExposureTestSupport
import Foundation
import Testing

@testable import Submission
@testable import SubmissionCore
@testable import SubmissionCovidShield
@testable import SubmissionDomain

/// `GET /retrieve-day` and `/retrieve-hour` over real HTTP on both databases (acceptance 11–16), plus the
/// configuration and ping endpoints.
@Suite struct CovidShieldRetrievalTests {
    static let day: Int64 = 86_400

    @Test(arguments: TestDatabase.all)
    func aDayWithoutKeysIsAnEmptyCacheableStream(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind) { harness in
            let yesterday = CovidShieldWire.day(harness.nowSeconds - Self.day)
            let response = try await harness.retrieveDay(yesterday)
            Covers.status(200, of: "GET /retrieve-day/{date}/{hmac}", response)
            #expect(response.body == [0, 0, 0, 0])
            #expect(response.header("content-type") == "application/x-protobuf; delimited=true")
            #expect(response.header("cache-control") == "public, max-age=3600, max-stale=600")
        }
    }

    @Test(arguments: TestDatabase.all)
    func theHMACIsCheckedFirstWithinAnHourEitherSide(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind) { harness in
            let yesterday = CovidShieldWire.day(harness.nowSeconds - Self.day)
            let other = CovidShieldWire.day(harness.nowSeconds - 2 * Self.day)
            let hour = harness.currentHour
            for offset in [-1, 0, 1] as [Int64] {
                #expect(try await harness.retrieveDay(yesterday, hmac: CovidShieldWire.hmac(yesterday, hour: hour + offset)).status == 200)
            }
            var altered = Array(CovidShieldWire.hmac(yesterday, hour: hour))
            altered[5] = altered[5] == "0" ? "1" : "0"
            for hmac in [CovidShieldWire.hmac(other, hour: hour), String(altered), CovidShieldWire.hmac(yesterday, hour: hour - 2), "zz", String(repeating: "a", count: 64)] {
                let refused = try await harness.retrieveDay(yesterday, hmac: hmac)
                Covers.status(401, of: "GET /retrieve-day/{date}/{hmac}", refused)
                #expect(refused.text == "unauthorized\n")
            }
            // A bad date behind a bad HMAC is still unauthorized; behind a good one, a bad date.
            #expect(try await harness.retrieveDay("2020-13-01", hmac: CovidShieldWire.hmac(yesterday, hour: hour)).status == 401)
            let badDate = try await harness.retrieveDay("2020-13-01")
            Covers.status(400, of: "GET /retrieve-day/{date}/{hmac}", badDate)
            #expect(badDate.status == 400 && badDate.text == "invalid date parameter\n")
            // The reference's route takes an empty HMAC after the date's slash (and refuses it); without the slash,
            // no route matches.
            let empty = try await harness.client.get("/retrieve-day/\(yesterday)/")
            #expect(empty.status == 401 && empty.text == "unauthorized\n")
            let missing = try await harness.client.get("/retrieve-day/\(yesterday)")
            #expect(missing.status == 404 && missing.text == "404 page not found\n")
        }
    }

    @Test(arguments: TestDatabase.all)
    func daysAreServedFromYesterdayToFourteenDaysAgo(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind) { harness in
            let now = harness.nowSeconds
            let today = try await harness.retrieveDay(CovidShieldWire.day(now))
            Covers.status(404, of: "GET /retrieve-day/{date}/{hmac}", today)
            #expect(today.text == "use /retrieve-hour for today's data\n")
            let tomorrow = try await harness.retrieveDay(CovidShieldWire.day(now + Self.day))
            #expect(tomorrow.status == 404 && tomorrow.text == "cannot request future data\n")
            let gone = try await harness.retrieveDay(CovidShieldWire.day(now - 15 * Self.day))
            Covers.status(410, of: "GET /retrieve-day/{date}/{hmac}", gone)
            #expect(gone.status == 410 && gone.text == "requested data no longer valid\n")
            #expect(try await harness.retrieveDay(CovidShieldWire.day(now - 14 * Self.day)).status == 200)
        }
    }

    @Test(arguments: TestDatabase.all)
    func hoursAreServedForTodayAndYesterdayButNotTheCurrentOne(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind) { harness in
            // 2020-05-20 10:30 UTC.
            harness.clock.set(Date(timeIntervalSince1970: TimeInterval(CovidShieldWire.midnight + 10 * 3600 + 1800)))
            let today = CovidShieldWire.day(harness.nowSeconds), yesterday = CovidShieldWire.day(harness.nowSeconds - Self.day)
            let older = try await harness.retrieveHour(CovidShieldWire.day(harness.nowSeconds - 2 * Self.day), "05")
            Covers.status(404, of: "GET /retrieve-hour/{date}/{hour}/{hmac}", older)
            #expect(older.status == 404 && older.text == "use /retrieve-day for data not from today or yesterday\n")
            for hour in ["24", "99"] {
                let bad = try await harness.retrieveHour(today, hour)
                Covers.status(400, of: "GET /retrieve-hour/{date}/{hour}/{hmac}", bad)
                #expect(bad.text == "invalid hour number\n")
            }
            // Not two digits: no route of the reference's matches.
            for hour in ["x1", "123", "9"] {
                let unrouted = try await harness.retrieveHour(today, hour)
                #expect(unrouted.status == 404 && unrouted.text == "404 page not found\n", "\(hour)")
            }
            let current = try await harness.retrieveHour(today, "10")
            #expect(current.status == 404 && current.text == "cannot serve data for current hour for privacy reasons\n")
            let later = try await harness.retrieveHour(today, "11")
            #expect(later.status == 404 && later.text == "cannot request future data\n")
            #expect(try await harness.retrieveHour(today, "09").status == 200)
            let midnight = try await harness.retrieveHour(yesterday, "00")
            Covers.status(200, of: "GET /retrieve-hour/{date}/{hour}/{hmac}", midnight)
            #expect(midnight.body == [0, 0, 0, 0])
            #expect(midnight.header("cache-control") == "public, max-age=3600, max-stale=600")
        }
    }

    @Test(arguments: TestDatabase.all)
    func anUploadedKeyAppearsInItsHourAndDayWithItsRegion(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind) { harness in
            let pair = try await harness.claimPair(region: "ON")
            let uploadHour = harness.currentHour
            let rsnToday = UInt32(harness.nowSeconds / Self.day * 144)
            let fresh = CovidShieldWire.key(0x10, rollingStart: rsnToday - 144)
            let stale = CovidShieldWire.key(0x20, rollingStart: rsnToday - 15 * 144)
            #expect(try await harness.upload([fresh, stale], to: pair).status == 200)
            // An hour later the upload's hour is served.
            harness.clock.advance(by: 3600)
            let date = CovidShieldWire.day(uploadHour * 3600)
            let hourText = String(format: "%02d", uploadHour % 24)
            let response = try await harness.retrieveHour(date, hourText)
            #expect(response.status == 200)
            let files = try CovidShieldWire.files(response.body)
            #expect(files.count == 1)
            #expect(files.first?.file.header.region == "ON")
            #expect(files.first?.file.header.startTimestamp == uploadHour * 3600 && files.first?.file.header.endTimestamp == uploadHour * 3600 + 3600)
            #expect(files.first?.file.key.map(\.keyData) == [fresh.keyData])
            // The next day, in the day's stream.
            harness.clock.advance(by: TimeInterval(Self.day))
            let dayFiles = try CovidShieldWire.files(try await harness.retrieveDay(date).body)
            #expect(dayFiles.first?.file.key.map(\.keyData) == [fresh.keyData])
        }
    }

    @Test(arguments: TestDatabase.all)
    func theSheetsStreamIsServedByteForByte(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind) { harness in
            // The sheet's example: one key (00..0f, RSN 2649744, 144, TRL 3) of ON submitted on 2020-05-19.
            let key = DiagnosisKey(
                keyData: Data(0..<16), rollingStartIntervalNumber: 2_649_744, rollingPeriod: 144, transmissionRiskLevel: 3,
                daysSinceOnsetOfSymptoms: 0, reportType: 1, originCountry: "ON", visitedCountries: [], consentToFederation: false, submissionType: 0)
            try await harness.storePublishable([key], at: Date(timeIntervalSince1970: TimeInterval(CovidShieldWire.midnight - 3600)))
            let response = try await harness.retrieveDay("2020-05-19")
            #expect(response.body == CovidShieldWire.bytes("""
                00000034 0a140880c38cf6051080e691f6051a024f4e20012801 121c0a10000102030405060708090a0b0c0d0e0f1090dda1011890012003
                """))
        }
    }

    @Test(arguments: TestDatabase.all)
    func cwaKeysJoinARegionsStreamOnlyWhereTheOperatorSaysSo(kind: TestDatabase) async throws {
        let cwa = DiagnosisKey(
            keyData: Data(repeating: 0xDE, count: 16), rollingStartIntervalNumber: 2_649_744, rollingPeriod: 144, transmissionRiskLevel: 6,
            daysSinceOnsetOfSymptoms: 0, reportType: 1, originCountry: "DE", visitedCountries: [], consentToFederation: false, submissionType: 0)
        for (setting, expected) in [(nil, 0), ("ON", 1)] as [(String?, Int)] {
            try await SubmissionHarness.runCovidShield(kind, environment: setting.map { ["COVIDSHIELD_CWA_KEYS_REGION": $0] } ?? [:]) { harness in
                try await harness.storePublishable([cwa], at: Date(timeIntervalSince1970: TimeInterval(CovidShieldWire.midnight - 3600)))
                let files = try CovidShieldWire.files(try await harness.retrieveDay("2020-05-19").body)
                #expect(files.flatMap(\.file.key).count == expected)
                #expect(files.allSatisfy { $0.file.header.region == "ON" })
            }
        }
    }

    @Test(arguments: TestDatabase.all)
    func aBusyDayIsSplitIntoFilesUnder500kB(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind) { harness in
            let keys = (0..<18_001).map { index -> DiagnosisKey in
                var data = SystemRandomSource().bytes(count: 12)
                data += withUnsafeBytes(of: UInt32(index).bigEndian, Array.init)
                return DiagnosisKey(
                    keyData: Data(data), rollingStartIntervalNumber: 2_649_744, rollingPeriod: 144, transmissionRiskLevel: 3,
                    daysSinceOnsetOfSymptoms: 0, reportType: 1, originCountry: "ON", visitedCountries: [], consentToFederation: false, submissionType: 0)
            }
            try await harness.storePublishable(keys, at: Date(timeIntervalSince1970: TimeInterval(CovidShieldWire.midnight - 3600)))
            let files = try CovidShieldWire.files(try await harness.retrieveDay("2020-05-19").body)
            #expect(files.map(\.file.key.count) == [17_063, 938])
            #expect(files.map(\.file.header.batchNum) == [1, 2])
            #expect(files.allSatisfy { $0.file.header.batchSize == 2 && $0.length < 512_000 })
            let all = files.flatMap(\.file.key).map(\.keyData)
            #expect(all == all.sorted { $0.lexicographicallyPrecedes($1) })
        }
    }

    @Test(arguments: TestDatabase.all)
    func configurationAndPing(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind) { harness in
            let ping = try await harness.client.get("/services/ping")
            Covers.status(200, of: "GET /services/ping", ping)
            #expect(ping.text == "OK\n")
            let configuration = try await harness.client.get("/exposure-configuration/ON.json")
            Covers.status(200, of: "GET /exposure-configuration/{file}", configuration)
            #expect(configuration.json["transmissionRiskWeight"] as? Int == 50)
            let otherRegion = try await harness.client.get("/exposure-configuration/QC.json")
            Covers.status(404, of: "GET /exposure-configuration/{file}", otherRegion)
            #expect(otherRegion.text == "404 page not found\n")
            let noSuffix = try await harness.client.get("/exposure-configuration/ON")
            #expect(noSuffix.status == 404 && noSuffix.text == "404 page not found\n")
        }
    }
}

extension CovidShieldRetrievalTests {
    @Test(arguments: TestDatabase.all)
    func aWrongHourHMACIsUnauthorized(kind: TestDatabase) async throws {
        try await SubmissionHarness.runCovidShield(kind) { harness in
            let today = CovidShieldWire.day(harness.nowSeconds)
            let refused = try await harness.retrieveHour(today, "00", hmac: CovidShieldWire.hmac("\(today):01", hour: harness.currentHour))
            Covers.status(401, of: "GET /retrieve-hour/{date}/{hour}/{hmac}", refused)
            #expect(refused.text == "unauthorized\n")
        }
    }
}
