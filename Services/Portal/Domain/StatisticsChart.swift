/// A bar chart of daily values as SVG, drawn on the server: no script, no external resource, and text escaped, so
/// that it can stand inline in a page under the portal's Content-Security-Policy.
///
/// The vertical axis has round ticks (1, 2 or 5 times a power of ten) with grid lines; the horizontal axis marks each
/// Monday, labelled with its date in a period of up to 31 days, and labels each month's first day in a longer one.
/// The same period just before can be drawn over the bars as a dashed line, so that a week or a month compares with
/// the one before it.
public struct StatisticsChart: Sendable {
    public struct Bar: Sendable, Equatable {
        /// The day as its tooltip names it (`Nov 27, 2026`).
        public let label: String
        public let value: Int64
        /// The day as days since 1970-01-01 (for the weekday marks); nil leaves the day unmarked.
        public let day: Int64?

        public init(label: String, value: Int64, day: Int64? = nil) {
            self.label = label
            self.value = value
            self.day = day
        }

        /// 1970-01-01 was a Thursday: Mondays are the days 4, 11, 18, … .
        var isMonday: Bool { day.map { (($0 % 7) + 7) % 7 == 4 } ?? false }
        var isFirstOfMonth: Bool { day.map(LocaleFormat.isFirstOfMonth(day:)) ?? false }
    }

    /// The same days of the period before, and what the legend calls them.
    public struct Previous: Sendable, Equatable {
        public let values: [Int64]
        public let legend: String

        public init(values: [Int64], legend: String) {
            self.values = values
            self.legend = legend
        }
    }

    public static let width = 640
    public static let height = 220
    static let margin = (left: 48, right: 8, top: 22, bottom: 32)
    /// Up to this many days, each Monday is labelled; beyond, each month.
    static let labelledMondays = 31

    public let title: String
    public let bars: [Bar]
    public let previous: Previous?
    /// How the axes and tooltips write numbers and days: the page's language.
    public let format: LocaleFormat

    public init(title: String, bars: [Bar], previous: Previous? = nil, format: LocaleFormat = .iso) {
        self.title = title
        self.bars = bars
        self.previous = previous
        self.format = format
    }

    /// Round ticks from 0 to at least `maximum`: about four steps of 1, 2 or 5 times a power of ten.
    static func ticks(upTo maximum: Int64) -> [Int64] {
        let wanted = max(maximum, 1)
        var magnitude: Int64 = 1
        while magnitude * 10 <= wanted / 4 { magnitude *= 10 }
        let multiples: [Int64] = [1, 2, 5, 10]
        let step: Int64 = multiples.map { $0 * magnitude }.first { $0 * 4 >= wanted } ?? magnitude * 10
        let top: Int64 = (wanted + step - 1) / step * step
        return Array(stride(from: Int64(0), through: top, by: Int64.Stride(step)))
    }

    /// The chart as an `<svg>` element: one bar per day, a tooltip (`<title>`) per bar, round ticks and grid lines,
    /// the weekday or month marks beneath, and the previous period's line with its legend.
    public var svg: String {
        let plotWidth = Self.width - Self.margin.left - Self.margin.right
        let plotHeight = Self.height - Self.margin.top - Self.margin.bottom
        let ticks = Self.ticks(upTo: max(bars.map(\.value).max() ?? 0, previous?.values.max() ?? 0))
        let top = Double(ticks.last ?? 1)
        let slot = bars.isEmpty ? Double(plotWidth) : Double(plotWidth) / Double(bars.count)
        let barWidth = max(slot * 0.8, 1)
        let baseline = Self.margin.top + plotHeight
        func y(_ value: Int64) -> Double { Double(baseline) - Double(plotHeight) * Double(value) / top }
        func center(_ index: Int) -> Double { Double(Self.margin.left) + slot * (Double(index) + 0.5) }

        var parts: [String] = []
        parts.append(
            #"<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" viewBox="0 0 \#(Self.width) \#(Self.height)" "#
                + #"width="100%" aria-label="\#(Self.escape(title))">"#
        )
        parts.append("<title>\(Self.escape(title))</title>")
        for tick in ticks {
            let at = Self.number(y(tick))
            if tick > 0 {
                parts.append(#"<line class="grid" x1="\#(Self.margin.left)" y1="\#(at)" x2="\#(Self.width - Self.margin.right)" y2="\#(at)" stroke="currentColor" stroke-opacity="0.15"/>"#)
            }
            parts.append(#"<text class="tick" x="\#(Self.margin.left - 4)" y="\#(Self.number(y(tick) + 4))" text-anchor="end" font-size="11" fill="currentColor">\#(Self.escape(format.number(tick)))</text>"#)
        }
        parts.append(#"<line class="axis" x1="\#(Self.margin.left)" y1="\#(baseline)" x2="\#(Self.width - Self.margin.right)" y2="\#(baseline)" stroke="currentColor"/>"#)
        parts.append(#"<line class="axis" x1="\#(Self.margin.left)" y1="\#(Self.margin.top)" x2="\#(Self.margin.left)" y2="\#(baseline)" stroke="currentColor"/>"#)
        for (index, bar) in bars.enumerated() {
            let height = Double(baseline) - y(bar.value)
            let x = Double(Self.margin.left) + slot * Double(index) + (slot - barWidth) / 2
            parts.append(
                #"<rect class="bar" x="\#(Self.number(x))" y="\#(Self.number(y(bar.value)))" width="\#(Self.number(barWidth))" "#
                    + #"height="\#(Self.number(height))" fill="steelblue"><title>\#(Self.escape(bar.label)): \#(Self.escape(format.number(bar.value)))</title></rect>"#
            )
        }
        parts += marks(center: center, baseline: baseline)
        if let previous, !previous.values.isEmpty {
            let points = previous.values.prefix(bars.count).enumerated().map { "\(Self.number(center($0.offset))),\(Self.number(y($0.element)))" }
            parts.append(#"<polyline class="previous" points="\#(points.joined(separator: " "))" fill="none" stroke="currentColor" stroke-width="1.5" stroke-dasharray="4 3"/>"#)
            parts.append(#"<line x1="\#(Self.margin.left + 4)" y1="10" x2="\#(Self.margin.left + 28)" y2="10" stroke="currentColor" stroke-width="1.5" stroke-dasharray="4 3"/>"#)
            parts.append(#"<text class="legend" x="\#(Self.margin.left + 32)" y="14" font-size="11" fill="currentColor">\#(Self.escape(previous.legend))</text>"#)
        }
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    /// A tick under each Monday; labels under Mondays (`Nov 16`) in a short period, under months' first days
    /// (`Nov 2026`) in a long one, and the first and last day when nothing else would date the axis.
    private func marks(center: (Int) -> Double, baseline: Int) -> [String] {
        var parts: [String] = []
        var labelled = false
        let short = bars.count <= Self.labelledMondays
        for (index, bar) in bars.enumerated() {
            let x = Self.number(center(index))
            if bar.isMonday {
                parts.append(#"<line class="weekday" x1="\#(x)" y1="\#(baseline)" x2="\#(x)" y2="\#(baseline + 5)" stroke="currentColor"/>"#)
            }
            let label: String? = bar.day.flatMap { day in
                short ? (bar.isMonday ? format.dayAndMonth(day: day) : nil) : (bar.isFirstOfMonth ? format.month(day: day) : nil)
            }
            if let label {
                labelled = true
                parts.append(#"<text class="day" x="\#(x)" y="\#(Self.height - 12)" text-anchor="middle" font-size="11" fill="currentColor">\#(Self.escape(label))</text>"#)
            }
        }
        if !labelled, let first = bars.first, let last = bars.last {
            parts.append(#"<text class="day" x="\#(Self.margin.left)" y="\#(Self.height - 12)" font-size="11" fill="currentColor">\#(Self.escape(first.label))</text>"#)
            parts.append(#"<text class="day" x="\#(Self.width - Self.margin.right)" y="\#(Self.height - 12)" text-anchor="end" font-size="11" fill="currentColor">\#(Self.escape(last.label))</text>"#)
        }
        return parts
    }

    /// Text as XML character data or an attribute value.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// A coordinate with at most one decimal.
    static func number(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(Int(tenths / 10)) : String(tenths / 10)
    }
}
