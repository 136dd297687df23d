/// Each app family's way from what a patient is given to an upload, over one period: the CWA's registered tests, TANs
/// and uploads; CovidShield's and ProteGO's codes issued, redeemed and uploads. The counts come from two services
/// (verification counts the first two steps, submission the uploads), so a step may hold what began in the period
/// before and exceed the step before it; its share is shown as it is, not capped.
public struct StatisticsFunnel: Sendable, Equatable {
    /// A figure of one service, narrowed to one breakdown (`uploads` of `cwa`) or whole (`registrations`).
    public struct Step: Sendable, Equatable {
        public let service: String
        public let figure: String
        public let breakdown: String?

        public init(service: String, figure: String, breakdown: String? = nil) {
            self.service = service
            self.figure = figure
            self.breakdown = breakdown
        }
    }

    /// An app family's steps, with its proper name (the same in every language).
    public struct Family: Sendable, Equatable {
        public let id: String
        public let name: String
        public let steps: [Step]
    }

    /// The families whose ways the services count, in the order the page shows them.
    public static let families: [Family] = [
        Family(id: "cwa", name: "Corona-Warn-App", steps: [
            Step(service: "verification", figure: "registrations"),
            Step(service: "verification", figure: "tans_issued"),
            Step(service: "submission", figure: "uploads", breakdown: "cwa"),
        ]),
        Family(id: "covidshield", name: "CovidShield", steps: [
            Step(service: "verification", figure: "codes_issued", breakdown: "covidshield"),
            Step(service: "verification", figure: "codes_redeemed", breakdown: "covidshield"),
            Step(service: "submission", figure: "uploads", breakdown: "covidshield"),
        ]),
        Family(id: "protego", name: "ProteGO Safe", steps: [
            Step(service: "verification", figure: "codes_issued", breakdown: "protego"),
            Step(service: "verification", figure: "codes_redeemed", breakdown: "protego"),
            Step(service: "submission", figure: "uploads", breakdown: "protego"),
        ]),
    ]

    public let family: Family
    /// Each step's total over the period, in the family's order.
    public let totals: [Int64]

    public init(family: Family, totals: [Int64]) {
        self.family = family
        self.totals = totals
    }

    /// The share of the step before, in whole percent; nil for the first step and after a step of none.
    public func share(ofStep index: Int) -> Int64? {
        guard index > 0, totals[index - 1] > 0 else { return nil }
        return (totals[index] * 100 + totals[index - 1] / 2) / totals[index - 1]
    }

    public static let width = 640
    static let rowHeight = 30
    static let labelWidth = 200

    /// The funnel as an `<svg>` element: one horizontal bar per step, as long as its share of the largest step, with
    /// its name, count and share beside it, under the same Content-Security-Policy as the daily charts (no script, no
    /// external resource, text escaped). `stepName` names a step; `shareText` words a share ("83 %"); `format` writes
    /// the counts.
    public func svg(title: String, stepName: (Step) -> String, shareText: (Int64) -> String, format: LocaleFormat = .iso) -> String {
        let height = Self.rowHeight * totals.count + 8
        let longest = max(totals.max() ?? 0, 1)
        let barSpace = Double(Self.width - Self.labelWidth - 150)
        var parts: [String] = [
            #"<svg xmlns="http://www.w3.org/2000/svg" class="chart funnel" role="img" viewBox="0 0 \#(Self.width) \#(height)" "#
                + #"width="100%" aria-label="\#(StatisticsChart.escape(title))">"#,
            "<title>\(StatisticsChart.escape(title))</title>",
        ]
        for (index, step) in family.steps.enumerated() {
            let top = 4 + index * Self.rowHeight
            let length = max(barSpace * Double(totals[index]) / Double(longest), totals[index] > 0 ? 1 : 0)
            var label = format.number(totals[index])
            if let share = share(ofStep: index) { label += " (\(shareText(share)))" }
            parts.append(#"<text x="\#(Self.labelWidth - 6)" y="\#(top + 19)" text-anchor="end" font-size="12" fill="currentColor">\#(StatisticsChart.escape(stepName(step)))</text>"#)
            parts.append(
                #"<rect class="bar" x="\#(Self.labelWidth)" y="\#(top + 4)" width="\#(StatisticsChart.number(length))" height="\#(Self.rowHeight - 8)" fill="steelblue">"#
                    + #"<title>\#(StatisticsChart.escape(stepName(step))): \#(StatisticsChart.escape(label))</title></rect>"#
            )
            parts.append(#"<text class="value" x="\#(StatisticsChart.number(Double(Self.labelWidth) + length + 6))" y="\#(top + 19)" font-size="12" fill="currentColor">\#(StatisticsChart.escape(label))</text>"#)
        }
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }
}
