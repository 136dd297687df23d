import SQLKit

extension SQLQueryString {
    /// Appends `(v1, v2, …)` with every value bound, never spliced into the SQL: the list of an `IN (…)`.
    public mutating func appendBindList<Value: Encodable & Sendable>(_ values: [Value]) {
        appendLiteral("(")
        for (offset, value) in values.enumerated() {
            if offset > 0 { appendLiteral(", ") }
            appendInterpolation(bind: value)
        }
        appendLiteral(")")
    }

    /// `\(bindList: values)` in a query string: `appendBindList(values)`.
    public mutating func appendInterpolation<Value: Encodable & Sendable>(bindList values: [Value]) {
        appendBindList(values)
    }
}
