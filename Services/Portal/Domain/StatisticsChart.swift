/// A bar chart of daily values as SVG, drawn on the server: no script, no external resource, and text escaped, so
/// that it can stand inline in a page under the portal's Content-Security-Policy.
public struct StatisticsChart: Sendable {
    public struct Bar: Sendable, Equatable {
        /// The day, `YYYY-MM-DD`.
        public let label: String
        public let value: Int64

        public init(label: String, value: Int64) {
            self.label = label
            self.value = value
        }
    }

    public static let width = 640
    public static let height = 200
    static let margin = (left: 48, right: 8, top: 12, bottom: 28)

    public let title: String
    public let bars: [Bar]

    public init(title: String, bars: [Bar]) {
        self.title = title
        self.bars = bars
    }

    /// The chart as an `<svg>` element: one bar per day, a tooltip (`<title>`) per bar, the largest value on the
    /// vertical axis and the first and last day beneath.
    public var svg: String {
        let plotWidth = Self.width - Self.margin.left - Self.margin.right
        let plotHeight = Self.height - Self.margin.top - Self.margin.bottom
        let maximum = max(bars.map(\.value).max() ?? 0, 1)
        let slot = bars.isEmpty ? Double(plotWidth) : Double(plotWidth) / Double(bars.count)
        let barWidth = max(slot * 0.8, 1)
        var parts: [String] = []
        parts.append(
            #"<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" viewBox="0 0 \#(Self.width) \#(Self.height)" "#
                + #"width="100%" aria-label="\#(Self.escape(title))">"#
        )
        parts.append("<title>\(Self.escape(title))</title>")
        let baseline = Self.margin.top + plotHeight
        parts.append(#"<line class="axis" x1="\#(Self.margin.left)" y1="\#(baseline)" x2="\#(Self.width - Self.margin.right)" y2="\#(baseline)" stroke="currentColor"/>"#)
        parts.append(#"<line class="axis" x1="\#(Self.margin.left)" y1="\#(Self.margin.top)" x2="\#(Self.margin.left)" y2="\#(baseline)" stroke="currentColor"/>"#)
        parts.append(#"<text x="\#(Self.margin.left - 4)" y="\#(Self.margin.top + 10)" text-anchor="end" font-size="11" fill="currentColor">\#(maximum)</text>"#)
        parts.append(#"<text x="\#(Self.margin.left - 4)" y="\#(baseline)" text-anchor="end" font-size="11" fill="currentColor">0</text>"#)
        for (index, bar) in bars.enumerated() {
            let height = Double(plotHeight) * Double(bar.value) / Double(maximum)
            let x = Double(Self.margin.left) + slot * Double(index) + (slot - barWidth) / 2
            let y = Double(baseline) - height
            parts.append(
                #"<rect class="bar" x="\#(Self.number(x))" y="\#(Self.number(y))" width="\#(Self.number(barWidth))" "#
                    + #"height="\#(Self.number(height))" fill="steelblue"><title>\#(Self.escape(bar.label)): \#(bar.value)</title></rect>"#
            )
        }
        if let first = bars.first, let last = bars.last {
            parts.append(#"<text x="\#(Self.margin.left)" y="\#(Self.height - 8)" font-size="11" fill="currentColor">\#(Self.escape(first.label))</text>"#)
            parts.append(#"<text x="\#(Self.width - Self.margin.right)" y="\#(Self.height - 8)" text-anchor="end" font-size="11" fill="currentColor">\#(Self.escape(last.label))</text>"#)
        }
        parts.append("</svg>")
        return parts.joined(separator: "\n")
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
