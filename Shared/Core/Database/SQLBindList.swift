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
}
