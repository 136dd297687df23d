import ExposureCore
import ExposureStatistics
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PortalDomain

/// The statistics page: daily counts as server-drawn SVG charts, and the same counts to download as CSV or JSON
/// (docs/statistics.md). A system administrator sees every service's national counts; a supervisor their own
/// authority's, from the portal's audit log (what its officers were issued and refused), and nothing of another's.
/// Officers without either role get 403.
extension PortalWeb {
    enum StatisticsFormat {
        case csv
        case json
    }

    /// The periods a supervisor can choose, in days (the default first).
    static let statisticsPeriods = [28, 7, 90, 365]
    /// The figures in the order the page shows them; figures it does not know follow, by name.
    static let figureOrder = [
        "teletans_issued", "teletans_issued_by_officer", "teletans_issued_by_authority", "codes_issued_by_issuer",
        "codes_issued_by_authority", "codes_issued", "registrations", "tans_issued", "codes_redeemed", "tans_redeemed", "lab_results_received",
        "uploads", "keys_submitted", "keys_published",
    ]

    /// `GET /statistics?days=N`.
    func statisticsPage(_ request: Request) async throws -> Response {
        try await asSupervisor(request, .statistics) { current, scope in try await statisticsPage(request, current, scope) }
    }

    /// The counts `scope` may read, one answer per source: every service's for the national view, the authority's own
    /// officers' for a supervisor.
    private func statisticsCounts(_ scope: AuthorityScope, from: StatisticsDay, through: StatisticsDay) async throws -> [StatisticsSources.Answer] {
        guard let authority = scope.authorityID else { return await statistics.counts(from: from, through: through) }
        return [StatisticsSources.Answer(service: Self.authoritySource, counts: try await audit.dailyCounts(authority: authority, from: from, through: through))]
    }

    /// The source name of an authority's own figures.
    static let authoritySource = "authority"

    private func statisticsPage(_ request: Request, _ current: PortalSession, _ scope: AuthorityScope) async throws -> Response {
        let days = try statisticsPeriod(request)
        let language = language(request)
        let texts = language.statisticsTexts
        let format = language.format
        let (from, to) = statisticsRange(days: days)
        var values: [String: Any] = [
            "st": texts,
            "days": days,
            "from": format.date(day: from.number),
            "to": format.date(day: to.number),
            "periods": Self.statisticsPeriods.sorted().map { period -> [String: Any] in
                ["days": period, "label": texts.lastDays.replacingOccurrences(of: "{days}", with: String(period)), "selected": period == days]
            },
        ]
        if statistics.isConfigured || scope != .national {
            // One read per source: the period before (the charts' second series), the finished days of the charts and
            // today's counts so far.
            let today = to.adding(days: 1)
            let answers = try await statisticsCounts(scope, from: from.adding(days: -Int64(days)), through: today)
            values["sources"] = answers.map { statisticsSource($0.keeping { $0.day <= to }, from: from, to: to, texts: texts, format: format) }
            let funnels = Self.funnels(answers.map { $0.keeping { $0.day >= from && $0.day <= to } })
            values["hasFunnels"] = !funnels.isEmpty
            values["funnels"] = funnels.map { funnelSection($0, texts: texts, format: format) }
            let rows = statisticsSoFarToday(answers.map { $0.keeping { $0.day == today } }, texts: texts, format: format)
            values["today"] = ["rows": rows, "hasRows": !rows.isEmpty]
        } else {
            values["notConfigured"] = true
        }
        return pages.render("statistics", language: language, title: texts.title, session: current, values: values)
    }

    /// Each family's funnel over the counts of `answers`: only for a family whose every step's service answered (a
    /// missing source would read as none), and that counted anything.
    static func funnels(_ answers: [StatisticsSources.Answer]) -> [StatisticsFunnel] {
        let counts = Dictionary(answers.compactMap { answer in answer.counts.map { (answer.service, $0) } }, uniquingKeysWith: { first, _ in first })
        return StatisticsFunnel.families.compactMap { family in
            var totals: [Int64] = []
            for step in family.steps {
                guard let rows = counts[step.service] else { return nil }
                totals.append(rows.reduce(0) { total, row in
                    row.figure == step.figure && (step.breakdown == nil || row.breakdown == step.breakdown) ? total + row.count : total
                })
            }
            return totals.contains { $0 > 0 } ? StatisticsFunnel(family: family, totals: totals) : nil
        }
    }

    /// One family's funnel: the chart and, for readers of numbers, the same as a table.
    private func funnelSection(_ funnel: StatisticsFunnel, texts: StatisticsTexts, format: LocaleFormat) -> [String: Any] {
        let name = { (step: StatisticsFunnel.Step) in texts.funnelSteps[step.figure] ?? step.figure }
        let share = { (percent: Int64) in texts.shareOfStepBefore.replacingOccurrences(of: "{share}", with: "\(percent) %") }
        return [
            "id": funnel.family.id,
            "name": funnel.family.name,
            "svg": funnel.svg(title: "\(texts.funnelHeading): \(funnel.family.name)", stepName: name, shareText: { "\($0) %" }, format: format),
            "steps": funnel.family.steps.enumerated().map { index, step -> [String: Any] in
                var row: [String: Any] = ["step": name(step), "count": format.number(funnel.totals[index])]
                if let percent = funnel.share(ofStep: index) { row["share"] = share(percent) }
                return row
            },
        ]
    }

    /// `GET /statistics.csv?days=N` and `GET /statistics.json?days=N`: every service's counts of the period, or 503
    /// when one of them cannot be read (a download is whole or nothing).
    func statisticsDownload(_ request: Request, format: StatisticsFormat) async throws -> Response {
        try await asSupervisor(request, .statistics) { _, scope in try await statisticsDownload(request, format, scope) }
    }

    private func statisticsDownload(_ request: Request, _ format: StatisticsFormat, _ scope: AuthorityScope) async throws -> Response {
        let days = try statisticsPeriod(request)
        let (from, to) = statisticsRange(days: days)
        guard statistics.isConfigured || scope != .national else { throw PortalError.unavailable }
        var services: [(service: String, counts: [DailyCount])] = []
        for answer in try await statisticsCounts(scope, from: from, through: to) {
            guard let counts = answer.counts else { throw PortalError.unavailable }
            services.append((answer.service, counts))
        }
        let name = "statistics-\(from)-\(to)"
        let body: String
        let contentType: String
        switch format {
        case .csv:
            body = StatisticsCSV.render(services: services)
            contentType = "text/csv; charset=utf-8"
        case .json:
            body = try StatisticsDownload(from: from, to: to, services: services).json()
            contentType = "application/json; charset=utf-8"
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: contentType,
                .contentDisposition: "attachment; filename=\"\(name).\(format == .csv ? "csv" : "json")\"",
                .cacheControl: "no-store",
            ],
            body: .init(byteBuffer: ByteBuffer(string: body))
        )
    }

    /// `days`, one of the offered periods (the default without the parameter).
    private func statisticsPeriod(_ request: Request) throws(PortalError) -> Int {
        guard let text = request.uri.queryParameters["days"] else { return Self.statisticsPeriods[0] }
        guard let days = Int(String(text)), Self.statisticsPeriods.contains(days) else { throw PortalError.badRequest }
        return days
    }

    /// The `days` finished days up to yesterday (UTC): the services answer what apps do for finished days only.
    private func statisticsRange(days: Int) -> (from: StatisticsDay, to: StatisticsDay) {
        let to = StatisticsDay(of: clock.now()).adding(days: -1)
        return (to.adding(days: -Int64(days - 1)), to)
    }

    /// Today's totals per service and figure: the services answer today's counts of what officers, labs and
    /// health-authority systems did, never of what apps did (`DailyFigure.isAppSide`). A service that cannot be read
    /// is left out here; its section below says so.
    private func statisticsSoFarToday(_ answers: [StatisticsSources.Answer], texts: StatisticsTexts, format: LocaleFormat) -> [[String: Any]] {
        answers.flatMap { answer -> [[String: Any]] in
            let totals = Dictionary(grouping: answer.counts ?? [], by: \.figure).mapValues { $0.reduce(0) { $0 + $1.count } }
            let names = totals.keys.sorted { (Self.figureOrder.firstIndex(of: $0) ?? Int.max, $0) < (Self.figureOrder.firstIndex(of: $1) ?? Int.max, $1) }
            return names.map { name in
                [
                    "id": "today-\(answer.service)-\(name)".replacingOccurrences(of: "_", with: "-"),
                    "service": texts.services[answer.service] ?? answer.service,
                    "title": texts.figure(name),
                    "count": format.number(totals[name] ?? 0),
                ]
            }
        }
    }

    /// One service's section: a chart per figure with its daily totals beside those of the period before, and its
    /// parts' totals. `answer` holds the period before `from` too.
    private func statisticsSource(
        _ answer: StatisticsSources.Answer, from: StatisticsDay, to: StatisticsDay, texts: StatisticsTexts, format: LocaleFormat
    ) -> [String: Any] {
        let serviceName = texts.services[answer.service] ?? answer.service
        var section: [String: Any] = ["service": answer.service, "name": serviceName]
        guard let counts = answer.counts else {
            section["unavailable"] = texts.sourceUnavailable.replacingOccurrences(of: "{service}", with: serviceName)
            return section
        }
        let byFigure = Dictionary(grouping: counts, by: \.figure)
        let days = to.number - from.number + 1
        let names = byFigure.keys.sorted { (Self.figureOrder.firstIndex(of: $0) ?? Int.max, $0) < (Self.figureOrder.firstIndex(of: $1) ?? Int.max, $1) }
        section["figures"] = names.map { name -> [String: Any] in
            let rows = byFigure[name] ?? []
            var perDay: [StatisticsDay: Int64] = [:]
            var perPart: [String: Int64] = [:]
            for row in rows {
                perDay[row.day, default: 0] += row.count
                if !row.breakdown.isEmpty && row.day >= from { perPart[row.breakdown, default: 0] += row.count }
            }
            let bars = stride(from: from.number, through: to.number, by: 1).map { number in
                let day = StatisticsDay(number: number)
                return StatisticsChart.Bar(label: format.date(day: number), value: perDay[day] ?? 0, day: number)
            }
            let before = stride(from: from.number - days, to: from.number, by: 1).map { perDay[StatisticsDay(number: $0)] ?? 0 }
            let comparison = texts.previousPeriod
                .replacingOccurrences(of: "{days}", with: String(days))
                .replacingOccurrences(of: "{total}", with: format.number(before.reduce(0, +)))
            let title = texts.figure(name)
            var figure: [String: Any] = [
                "id": "\(answer.service)-\(name)".replacingOccurrences(of: "_", with: "-"),
                "figure": name,
                "title": title,
                "svg": StatisticsChart(title: title, bars: bars, previous: .init(values: before, legend: comparison), format: format).svg,
                "summary": texts.summary
                    .replacingOccurrences(of: "{total}", with: format.number(bars.reduce(0) { $0 + $1.value }))
                    .replacingOccurrences(of: "{max}", with: format.number(bars.map(\.value).max() ?? 0)) + "; " + comparison,
                "daily": bars.map { ["day": $0.label, "count": format.number($0.value)] },
            ]
            if !perPart.isEmpty {
                figure["hasParts"] = true
                figure["parts"] = perPart.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { ["part": $0.key, "count": format.number($0.value)] }
            }
            return figure
        }
        if names.isEmpty { section["nothing"] = true }
        return section
    }
}
