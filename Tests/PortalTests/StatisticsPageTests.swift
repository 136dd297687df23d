import ExposureCore
import ExposureStatistics
import ExposureTestSupport
import Foundation
import Testing
@testable import Portal
@testable import PortalDomain
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The statistics page (the national view of system administrators): charts drawn on the server from verification's statistics API, and the same
/// counts as CSV and JSON downloads (docs/statistics.md).
@Suite struct StatisticsPageTests {
    @Test(arguments: TestDatabase.all)
    func aSystemAdministratorSeesChartsAndDownloadsTheCounts(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, verification: ["STATISTICS_FLUSH_INTERVAL": "1s"]) { h in
            let issuing = try await h.signedIn("hanna")
            try #require(try await issuing.issue("TEST").status == 200)
            let day = StatisticsDay(of: h.clock.now())
            // The page shows finished days: the next day, after verification's flush.
            try await Task.sleep(for: .milliseconds(1500))
            h.clock.advance(by: 86400)
            let supervisor = try await h.systemAdministrator("sam")
            var page = try await supervisor.get("/statistics")
            // Until verification's flush stored the count (the limit only ends a hang).
            try await pollUntil(interval: .milliseconds(200)) {
                page = try await supervisor.get("/statistics")
                return page.text.contains(#"id="figure-verification-teletans-issued""#)
            }
            Covers.status(200, of: "GET /statistics", page)
            #expect(page.text.contains(#"id="figure-verification-teletans-issued""#))
            #expect(page.text.contains(#"id="nav-statistics""#))
            // Days as the page's language writes them (English here: "Nov 28, 2026").
            let shown = Language.en.format.date(day: day.number)
            #expect(page.text.contains(#"<td>\#(shown)</td><td>1</td>"#))
            let svgs = try Self.svgs(in: page.text)
            #expect(svgs.count == 3)  // in total, by officer and by health authority
            #expect(page.text.contains(#"id="figure-verification-teletans-issued-by-authority""#))
            for svg in svgs { try Self.expectWellFormedXML(svg) }
            #expect(svgs[0].contains("<title>\(shown): 1</title>"))

            let csv = try await supervisor.get("/statistics.csv?days=7")
            Covers.status(200, of: "GET /statistics.csv", csv)
            #expect(csv.header("Content-Type")?.hasPrefix("text/csv") == true)
            #expect(csv.header("Content-Disposition")?.hasPrefix("attachment") == true)
            let lines = csv.text.split(separator: "\r\n").map(String.init)
            #expect(lines.first == "service,day,figure,breakdown,count")
            #expect(lines.dropFirst().allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false).count == 5 })
            #expect(lines.contains("verification,\(day),teletans_issued,,1"))
            #expect(lines.contains("verification,\(day),teletans_issued_by_officer,hanna,1"))
            #expect(lines.contains("verification,\(day),teletans_issued_by_authority,default,1"))

            let json = try await supervisor.get("/statistics.json?days=7")
            Covers.status(200, of: "GET /statistics.json", json)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.body)) as? [String: Any])
            let services = try #require(object["services"] as? [[String: Any]])
            #expect(services.map { $0["service"] as? String } == ["verification"])
            let counts = try #require(services.first?["counts"] as? [[String: Any]])
            #expect(counts.contains { $0["figure"] as? String == "teletans_issued" && $0["count"] as? Int == 1 && $0["day"] as? String == day.description })
            #expect(object["to"] as? String == day.description)

            // In German, and with another period.
            let german = try await h.systemAdministrator("sara", language: "de")
            let seite = try await german.get("/statistics?days=90")
            #expect(seite.status == 200)
            #expect(seite.text.contains("Ausgegebene teleTANs"))
            #expect(seite.text.contains(#"<option value="90" selected>"#))
            Covers.status(400, of: "GET /statistics", try await german.get("/statistics?days=5"), error: "bad-request")
        }
    }

    /// Issue #64: after a first look (the demo) the page is not empty. Officers' figures of today are shown as they
    /// happen, under "so far today", and the page says why what apps do waits for the day's end (the services never
    /// answer today's app-side figures: `StatisticsTests.appSideFiguresAreServedForFinishedDaysOnlyAndFakesCountNothing`).
    @Test(arguments: TestDatabase.all)
    func todaysOfficerFiguresAreShownSoFarAndAppFiguresWait(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, verification: ["STATISTICS_FLUSH_INTERVAL": "1s"]) { h in
            let supervisor = try await h.systemAdministrator("sam")
            let before = try await supervisor.get("/statistics")
            #expect(before.text.contains(#"id="nothing-yet-today""#))
            #expect(before.text.contains("appears once the day has ended"))
            let issuing = try await h.signedIn("hanna")
            try #require(try await issuing.issue("TEST").status == 200)
            // After the officer's interval between two teleTANs.
            h.clock.advance(by: 31)
            try #require(try await issuing.issue("TEST").status == 200)
            var page = before
            // Until verification's flush stored the counts (the limit only ends a hang).
            try await pollUntil(interval: .milliseconds(200)) {
                page = try await supervisor.get("/statistics")
                return page.text.contains(#"<tr id="today-verification-teletans-issued"><td>teleTANs issued (verification)</td><td>2</td></tr>"#)
            }
            #expect(page.text.contains(#"id="today-verification-teletans-issued-by-officer""#))
            #expect(!page.text.contains(#"id="nothing-yet-today""#))
            // Nothing of today in the charts of finished days.
            #expect(!page.text.contains(#"id="figure-verification-teletans-issued""#))
            let seite = try await h.systemAdministrator("sara", language: "de").get("/statistics")
            #expect(seite.text.contains("Bisher heute (UTC)") && seite.text.contains("Ausgegebene teleTANs (Verifikation)"))
        }
    }

    @Test(arguments: TestDatabase.all)
    func onlySignedInSupervisorsGetThePageOrTheDownloads(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind) { h in
            let signedOut = h.browser()
            for path in ["/statistics", "/statistics.csv", "/statistics.json"] {
                let answer = try await signedOut.get(path)
                #expect(answer.header("Location") == "/login")
                switch path {
                case "/statistics": Covers.status(303, of: "GET /statistics", answer)
                case "/statistics.csv": Covers.status(303, of: "GET /statistics.csv", answer)
                default: Covers.status(303, of: "GET /statistics.json", answer)
                }
            }
            let officer = try await h.signedIn("olga")
            #expect(try await !officer.get("/").text.contains(#"id="nav-statistics""#))
            let refused = try await officer.get("/statistics")
            Covers.status(403, of: "GET /statistics", refused, error: "not-supervisor")
            // Issue #62: the page says what it refused and who may see it, not "Something went wrong" about other pages.
            #expect(refused.text.contains("<title>For supervisors only"))
            #expect(refused.text.contains("The Statistics page, with the services&#39; daily counts, is for supervisors: officers with the role c19supervisor."))
            #expect(!refused.text.contains("Something went wrong") && !refused.text.contains("Audit page"))
            let german = try await h.signedIn("otto", language: "de").get("/statistics")
            #expect(german.status == 403 && german.text.contains("Die Statistik mit den täglichen Zahlen der Dienste ist der Leitung vorbehalten"))
            Covers.status(403, of: "GET /statistics.csv", try await officer.get("/statistics.csv"), error: "not-supervisor")
            Covers.status(403, of: "GET /statistics.json", try await officer.get("/statistics.json"), error: "not-supervisor")
        }
    }

    @Test(arguments: TestDatabase.all)
    func aServiceThatCannotBeReadIsSaidOnThePageAndFailsTheDownloads(kind: TestDatabase) async throws {
        try await PortalHarness.run(on: kind, portal: ["VERIFICATION_STATISTICS_URL": "http://127.0.0.1:1", "VERIFICATION_ATTEMPTS": "1"]) { h in
            let supervisor = try await h.systemAdministrator("sam")
            let page = try await supervisor.get("/statistics")
            #expect(page.status == 200)
            #expect(page.text.contains(#"id="unavailable-verification""#))
            Covers.status(503, of: "GET /statistics.csv", try await supervisor.get("/statistics.csv"), error: "unavailable")
            Covers.status(503, of: "GET /statistics.json", try await supervisor.get("/statistics.json"), error: "unavailable")
        }
    }

    /// Each family's funnel adds its steps' counts over the period from the two services that count them, and is left
    /// out when a service it needs could not be read (its missing counts would read as none) or when it counted
    /// nothing.
    @Test func eachFamilysFunnelAddsItsStepsFromBothServices() throws {
        let day = StatisticsDay(of: Date(timeIntervalSince1970: 1_790_000_000))
        func count(_ figure: String, _ breakdown: String, _ count: Int64, on offset: Int64 = 0) -> DailyCount {
            DailyCount(day: day.adding(days: offset), figure: figure, breakdown: breakdown, count: count)
        }
        let verification = StatisticsSources.Answer(service: "verification", counts: [
            count("registrations", "guid", 5), count("registrations", "teletan", 3, on: 1), count("tans_issued", "", 6),
            count("codes_issued", "protego", 7), count("codes_issued", "protego", 3, on: 1), count("codes_redeemed", "protego", 8),
            count("codes_issued_by_authority", "default", 10), count("teletans_issued", "", 4),
        ])
        let submission = StatisticsSources.Answer(service: "submission", counts: [
            count("uploads", "cwa", 4), count("uploads", "protego", 6), count("keys_submitted", "", 90),
        ])
        let funnels = PortalWeb.funnels([verification, submission])
        #expect(funnels.map(\.family.id) == ["cwa", "protego"])
        #expect(funnels.map(\.totals) == [[8, 6, 4], [10, 8, 6]])
        #expect(funnels[1].share(ofStep: 0) == nil && funnels[1].share(ofStep: 1) == 80 && funnels[1].share(ofStep: 2) == 75)
        #expect(StatisticsFunnel(family: StatisticsFunnel.families[1], totals: [0, 0, 2]).share(ofStep: 2) == nil)
        #expect(PortalWeb.funnels([verification, .init(service: "submission", counts: nil)]).isEmpty)
        #expect(PortalWeb.funnels([verification]).isEmpty)

        let svg = funnels[1].svg(title: "From code to upload: <ProteGO>", stepName: { $0.figure }, shareText: { "\($0) %" })
        try Self.expectWellFormedXML(svg)
        #expect(svg.contains("&lt;ProteGO&gt;") && !svg.contains("<ProteGO>"))
        #expect(svg.contains("<title>codes_redeemed: 8 (80 %)</title>") && svg.contains("<title>codes_issued: 10</title>"))
    }

    @Test func theChartEscapesItsTextAndIsWellFormed() throws {
        let chart = StatisticsChart(title: "a <b> & \"c\"", bars: [.init(label: "2026-11-27", value: 3), .init(label: "<x>", value: 0)])
        try Self.expectWellFormedXML(chart.svg)
        #expect(chart.svg.contains("a &lt;b&gt; &amp; &quot;c&quot;"))
        try Self.expectWellFormedXML(StatisticsChart(title: "empty", bars: []).svg)
    }

    /// Round ticks on the vertical axis, Mondays marked (and dated in a short period, months in a long one), and the
    /// period before as a dashed line with its legend.
    @Test func theChartHasRoundTicksWeekdayMarksAndThePeriodBefore() throws {
        #expect(StatisticsChart.ticks(upTo: 0) == [0, 1])
        #expect(StatisticsChart.ticks(upTo: 3) == [0, 1, 2, 3])
        #expect(StatisticsChart.ticks(upTo: 7) == [0, 2, 4, 6, 8])
        #expect(StatisticsChart.ticks(upTo: 37) == [0, 10, 20, 30, 40])
        #expect(StatisticsChart.ticks(upTo: 1234) == [0, 500, 1000, 1500])
        // 2026-11-14 is day 20771, a Saturday; 2026-11-16 a Monday.
        func bars(_ count: Int) -> [StatisticsChart.Bar] {
            (0..<count).map { index in
                let day = StatisticsDay(number: 20_771 + Int64(index))
                return .init(label: day.description, value: Int64(index % 5), day: day.number)
            }
        }
        let week = StatisticsChart(title: "week", bars: bars(14), previous: .init(values: Array(repeating: 3, count: 14), legend: "the 14 days before: 42"))
        try Self.expectWellFormedXML(week.svg)
        #expect(week.svg.components(separatedBy: #"class="weekday""#).count - 1 == 2)
        #expect(week.svg.contains(">11-16<") && week.svg.contains(">11-23<") && !week.svg.contains(">11-17<"))
        #expect(week.svg.contains(#"class="previous""#) && week.svg.contains("the 14 days before: 42"))
        #expect(week.svg.contains(#"class="tick""#) && week.svg.contains(">4<"))
        let year = StatisticsChart(title: "year", bars: bars(90))
        #expect(year.svg.contains(">2026-12<") && year.svg.contains(">2027-01<") && !year.svg.contains(">11-16<"))
        #expect(!year.svg.contains(#"class="previous""#))
        // In the page's language: Mondays and months as its readers write them, numbers grouped.
        let german = StatisticsChart(title: "Woche", bars: bars(14) + [.init(label: "28.11.2026", value: 1234, day: 20_785)], format: Language.de.format)
        #expect(german.svg.contains(">16.11.<") && german.svg.contains(">23.11.<") && german.svg.contains("<title>28.11.2026: 1.234</title>"))
        #expect(german.svg.contains(">1.500<"))
        #expect(StatisticsChart(title: "Jahr", bars: bars(90), format: Language.de.format).svg.contains(">Dez. 2026<"))
    }

    // MARK: Helpers

    static func svgs(in html: String) throws -> [String] {
        let regex = try NSRegularExpression(pattern: "<svg[\\s\\S]*?</svg>")
        return regex.matches(in: html, range: NSRange(html.startIndex..., in: html)).compactMap { Range($0.range, in: html).map { String(html[$0]) } }
    }

    static func expectWellFormedXML(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let parser = XMLParser(data: Data(text.utf8))
        #expect(parser.parse(), "not well-formed: \(String(describing: parser.parserError)) in \(text.prefix(300))", sourceLocation: sourceLocation)
    }
}
