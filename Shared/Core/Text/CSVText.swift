/// CSV as RFC 4180 writes it, for the files people open in a spreadsheet (the statistics and audit downloads).
public enum CSVText {
    /// One line of fields.
    public static func row(_ fields: [String]) -> String { fields.map(field).joined(separator: ",") }

    /// The rows as a file: each ended by CRLF.
    public static func lines(_ rows: [String]) -> String { rows.joined(separator: "\r\n") + "\r\n" }

    /// A field, quoted when it holds a comma, quote or line break; a leading `=`, `+`, `-` or `@` is prefixed with
    /// `'` so that a spreadsheet does not take an officer's name for a formula.
    public static func field(_ text: String) -> String {
        var value = text
        if let first = value.first, "=+-@".contains(first) { value = "'" + value }
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
