import ExposureCore
import ExposureTestSupport
import Foundation
@testable import SubmissionDomain
import SubmissionLemon
import Testing

/// The LEMON sheet's acceptance item 11: statistics imported from a JHU CSSE daily report, answered on both paths.
@Suite struct LemonStatisticsTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/lemon/05-17-2020.csv").path

    static let fields: Set<String> = [
        "CountryName", "ContractedCount", "DeathCount", "RecoveredCount", "Source", "SourceCreatedAt", "SourceUrl", "CreatedAt",
    ]

    @Test(arguments: TestDatabase.all)
    func importedCountsAreAnsweredOnBothPaths(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind) { h in
            let token = try await h.token(LemonTestDevice())
            // Before any import: 200 with nothing to show, on both paths, for a country, several and the world.
            for path in ["/api/v1/statistics/covid/google", "/api/v1/statistics/google"] {
                for query in ["?countries=ZA", "?countries=ZA&countries=GB", ""] {
                    let empty = try await h.send("GET", path + query, token: token)
                    empty.expectEnvelope(200, pascalCase: true)
                    #expect((empty.json["Data"] as? [Any])?.isEmpty == true, "\(path)\(query): \(empty.text)")
                }
            }
            let configuration = try LemonConfiguration(TestServices.settings(LemonTestKeys.settings))
            let rows = try await LemonStatisticsImport.run(
                file: Self.fixture, day: nil, configuration: configuration, database: h.base.database, clock: h.clock)
            // South Africa, the United Kingdom (two regions), South Korea and the world; Atlantis only in the world.
            #expect(rows == 4)
            for path in ["/api/v1/statistics/covid/google", "/api/v1/statistics/google"] {
                let southAfrica = try await h.send("GET", "\(path)?countries=ZA", token: token)
                southAfrica.expectEnvelope(200, pascalCase: true)
                let data = try #require(southAfrica.json["Data"] as? [String: Any])
                #expect(Set(data.keys) == Self.fields)
                #expect(data["CountryName"] as? String == "South Africa")
                #expect(data["ContractedCount"] as? Int == 16433)
                #expect(data["DeathCount"] as? Int == 286)
                #expect(data["RecoveredCount"] as? Int == 7298)
                #expect(data["SourceCreatedAt"] as? String == "2020-05-17T00:00:00")
                #expect(data["CreatedAt"] as? String == String(Date.iso8601(h.clock.now().epochSeconds).dropLast()))
                let global = try await h.send("GET", path, token: token)
                global.expectEnvelope(200, pascalCase: true)
                let world = try #require(global.json["Data"] as? [String: Any])
                #expect(Set(world.keys) == Self.fields)
                #expect(world["CountryName"] as? String == "Global")
                #expect(world["ContractedCount"] as? Int == 16433 + 122 + 241461 + 11050 + 7)
                let two = try await h.send("GET", "\(path)?countries=za&countries=GB", token: token)
                two.expectEnvelope(200, pascalCase: true)
                let list = try #require(two.json["Data"] as? [[String: Any]])
                #expect(list.map { $0["CountryName"] as? String } == ["South Africa", "United Kingdom"])
                #expect(list.last?["ContractedCount"] as? Int == 241461 + 122)
                // A supported country the report does not name is left out.
                let absent = try await h.send("GET", "\(path)?countries=DE", token: token)
                absent.expectEnvelope(200, pascalCase: true)
                #expect((absent.json["Data"] as? [Any])?.isEmpty == true)
                let partly = try await h.send("GET", "\(path)?countries=DE&countries=ZA", token: token)
                #expect((partly.json["Data"] as? [[String: Any]])?.map { $0["CountryName"] as? String } == ["South Africa"])
                try await h.send("GET", "\(path)?countries=XX", token: token).expectEnvelope(400, pascalCase: true)
                try await h.send("GET", "\(path)?countries=ZA", token: nil).expectEnvelope(401, pascalCase: true)
            }
            let marked = try await h.send("GET", "/api/v1/statistics/covid/google?countries=ZA", token: token)
            Covers.status(200, of: "GET /api/v1/statistics/covid/google", marked)
            let short = try await h.send("GET", "/api/v1/statistics/google", token: token)
            Covers.status(200, of: "GET /api/v1/statistics/google", short)
            // A day imported again replaces its counts.
            _ = try await LemonStatisticsImport.run(file: Self.fixture, day: "2020-05-17", configuration: configuration, database: h.base.database, clock: h.clock)
            let again = try await h.send("GET", "/api/v1/statistics/google?countries=ZA", token: token)
            #expect((again.json["Data"] as? [String: Any])?["ContractedCount"] as? Int == 16433)
        }
    }

    @Test func theDailyReportIsReadByItsHeader() throws {
        let catalog = LemonCatalog(
            countries: [LemonCountry(id: 1, name: "South Korea", alpha2: "KR", timezone: "Asia/Seoul", callingCode: "82", cultureInfo: "ko-KR")],
            languages: [], symptoms: [:]
        )
        let report = LemonDailyReport(catalog: catalog)
        let counts = try report.parse(#"""
            Province/State,Country/Region,Last Update,Confirmed,Deaths,Recovered
            ,"Korea, South",2020-03-01T10:13:19,3736,17,30
            "Hubei, ""quoted""",Mainland China,2020-03-01T10:13:19,66907,2761,31536
            """#)
        #expect(counts == [
            LemonDailyCount(country: "GLOBAL", day: "2020-03-01", contracted: 3736 + 66907, deaths: 17 + 2761, recovered: 30 + 31536),
            LemonDailyCount(country: "KR", day: "2020-03-01", contracted: 3736, deaths: 17, recovered: 30),
        ])
        #expect(LemonDailyReport.fields(#""a ""b"", c",d,,e"#) == [#"a "b", c"#, "d", "", "e"])
        #expect(throws: LemonDailyReport.Failure.missingColumn("Confirmed")) { try report.parse("Country_Region,Deaths\nX,1") }
    }
}
