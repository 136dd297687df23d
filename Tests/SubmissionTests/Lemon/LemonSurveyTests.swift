import ExposureCore
import ExposureTestSupport
import Foundation
import SQLKit
import Testing

/// The LEMON sheet's acceptance items 8–10, 12 and 15: symptoms, surveys, countries and languages.
@Suite struct LemonSurveyTests {
    /// The seed's four examples, commas fixed.
    static var seedExamples: [[String: Any]] {
        [
            ["Status": "Positive", "PositiveTestDate": "2020-03-30 13:00:09.1359267", "IsSymptomatic": false, "Country": "GB", "Language": "EN",
             "Age": 25, "Symptoms": ["question_positive_symptom-1"], "SymptomsFrom": "2020-03-29 13:00:09.1359267"],
            ["Status": "Negative", "NegativeTestDate": "2020-03-30 13:00:09.1359267", "Country": "GB", "Language": "EN", "Age": 25,
             "Symptoms": ["question_positive_symptom-1"], "SymptomsFrom": "2020-03-29 13:00:09.1359267"],
            ["Status": "Unsure", "IsSymptomatic": true, "Country": "GB", "Language": "EN", "Age": 25,
             "Symptoms": ["question_positive_symptom-1"], "SymptomsFrom": "2020-03-29 13:00:09.1359267"],
            ["Status": "Recovered", "PositiveTestDate": "2020-03-30 13:00:09.1359267", "NegativeTestDate": "2020-04-14 13:00:09.1359267",
             "IsSymptomatic": true, "Country": "GB", "Language": "EN", "Age": 25],
        ]
    }

    @Test(arguments: TestDatabase.all)
    func symptomsInEnglishByDefaultAndInGerman(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind) { h in
            let token = try await h.token(LemonTestDevice())
            let english = try await h.send("GET", "/api/v1/symptoms", token: token)
            Covers.status(200, of: "GET /api/v1/symptoms", english)
            english.expectEnvelope(200)
            #expect(english.lemonList.count == 12)
            #expect(english.lemonList.first?["key"] as? String == "question_positive_symptom-1")
            #expect(english.lemonList.first?["value"] as? String == "Sore throat")
            #expect(english.lemonList.last?["value"] as? String == "Loss of smell")
            let german = try await h.send("GET", "/api/v1/symptoms?language=DE", token: token)
            german.expectEnvelope(200)
            #expect(german.lemonList.map { $0["key"] as? String } == english.lemonList.map { $0["key"] as? String })
            #expect(german.lemonList.first?["value"] as? String == "Halsschmerzen")
            try await h.send("GET", "/api/v1/symptoms?language=zz", token: token).expectEnvelope(400)
            try await h.send("GET", "/api/v1/symptoms?language=english", token: token).expectEnvelope(400)
        }
    }

    @Test(arguments: TestDatabase.all)
    func theSeedsExamplesAreStoredUnlinkedToTheDay(kind: TestDatabase) async throws {
        // Five answers from one device: more than the daily limit's default (`LemonAttackTests` checks the limit).
        try await LemonHarness.run(kind, settings: ["LEMON_SURVEYS_PER_DEVICE_DAY": "5"]) { h in
            let token = try await h.token(LemonTestDevice())
            for example in Self.seedExamples {
                let answer = try await h.send("POST", "/api/v1/submission/covid", token: token, json: example)
                Covers.status(201, of: "POST /api/v1/submission/covid", answer)
                answer.expectEnvelope(201)
                #expect(answer.json["data"] is NSNull)
            }
            var lower = Self.seedExamples[1]
            lower["status"] = lower.removeValue(forKey: "Status")
            lower["AGE"] = lower.removeValue(forKey: "Age")
            try await h.send("POST", "/api/v1/submission/covid", token: token, json: lower).expectEnvelope(201)
            let rows = try await h.base.database.withConnection { connection in
                try await connection.raw("SELECT * FROM lemon_surveys").all()
            }
            #expect(rows.count == 5)
            let columns = Set(rows.first?.allColumns ?? [])
            #expect(columns == [
                "id", "submitted_day", "status", "positive_test_day", "negative_test_day", "symptoms_from_day", "country", "language", "age",
                "is_symptomatic", "symptoms",
            ])
            let today = Date.iso8601(h.clock.now().epochSeconds).prefix(10)
            for row in rows {
                #expect(try row.decode(column: "submitted_day", as: String.self) == String(today))
                if let from = try row.decode(column: "symptoms_from_day", as: String?.self) { #expect(from == "2020-03-29") }
            }
        }
    }

    @Test(arguments: TestDatabase.all)
    func surveysThatBreakARuleAreRefused(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind) { h in
            let token = try await h.token(LemonTestDevice())
            let base = Self.seedExamples[1]
            func with(_ change: (inout [String: Any]) -> Void) -> [String: Any] {
                var copy = base
                change(&copy)
                return copy
            }
            let keys = (1...12).map { "question_positive_symptom-\($0)" }
            let tomorrow = Date.iso8601(h.clock.now().epochSeconds + 86_400)
            let refused: [Any] = [
                with { $0["Age"] = 201 }, with { $0["Age"] = -1 }, with { $0["Age"] = "25" },
                with { $0["Symptoms"] = keys + keys },
                with { $0["Symptoms"] = (0..<21).map { "question_positive_symptom-\($0)" } },
                with { $0["Symptoms"] = ["question_positive_symptom-1", "question_positive_symptom-1"] },
                with { $0["Symptoms"] = ["question_positive_symptom-99"] },
                with { $0["Symptoms"] = [String(repeating: "q", count: 51)] },
                with { $0["NegativeTestDate"] = tomorrow }, with { $0["NegativeTestDate"] = "2019-11-30 10:00:00" },
                with { $0["NegativeTestDate"] = "yesterday" }, with { $0["NegativeTestDate"] = "2020-02-30 10:00:00" },
                with { $0["Status"] = "Maybe" }, with { $0["Country"] = "XX" }, with { $0["Country"] = "GBR" }, with { $0["Language"] = "zz" },
                with { $0["PositiveTestDate"] = "2020-03-30" }, with { $0["IsSymptomatic"] = true },
                ["Symptoms": ["question_positive_symptom-1"]], [String: Any](), [1, 2],
            ]
            for body in refused {
                try await h.send("POST", "/api/v1/submission/covid", token: token, json: body).expectEnvelope(400)
            }
            try await h.send("POST", "/api/v1/submission/covid", token: token).expectEnvelope(400)
            let stored = try await h.base.database.withConnection { connection in
                try await connection.raw("SELECT COUNT(*) AS n FROM lemon_surveys").first()?.decode(column: "n", as: Int.self)
            }
            #expect(stored == 0)
            // ISO 8601 dates and an offset are dates too.
            try await h.send("POST", "/api/v1/submission/covid", token: token, json: with { $0["NegativeTestDate"] = "2020-03-30T23:30:00-02:00" })
                .expectEnvelope(201)
        }
    }

    @Test(arguments: TestDatabase.all)
    func countriesAndLanguages(kind: TestDatabase) async throws {
        try await LemonHarness.run(kind) { h in
            let token = try await h.token(LemonTestDevice())
            let countries = try await h.send("GET", "/api/v1/countries", token: token)
            Covers.status(200, of: "GET /api/v1/countries", countries)
            countries.expectEnvelope(200)
            #expect(countries.lemonList.count > 10)
            let one = try await h.send("GET", "/api/v1/countries?country=za", token: token)
            one.expectEnvelope(200)
            #expect(one.lemonList.count == 1)
            #expect(one.lemonList.first?["name"] as? String == "South Africa")
            #expect(Set(one.lemonList.first?.keys.map { $0 } ?? []) == ["id", "name", "alpha2", "timezone", "callingCode", "cultureInfo"])
            try await h.send("GET", "/api/v1/countries?country=ZZZ", token: token).expectEnvelope(400)
            try await h.send("GET", "/api/v1/countries?country=XX", token: token).expectEnvelope(400)
            let languages = try await h.send("GET", "/api/v1/languages", token: token)
            Covers.status(200, of: "GET /api/v1/languages", languages)
            languages.expectEnvelope(200)
            #expect(languages.lemonList.count > 2)
            let german = try await h.send("GET", "/api/v1/languages?language=de", token: token)
            german.expectEnvelope(200)
            #expect(german.lemonList.map { $0["alpha2"] as? String } == ["DE"])
            try await h.send("GET", "/api/v1/languages?language=1", token: token).expectEnvelope(400)
        }
    }
}
