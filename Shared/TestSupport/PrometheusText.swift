import ExposureCore

/// Reads samples from the Prometheus text format that every service's `/metrics` answers, so that tests can
/// check what was counted rather than only that a line exists.
public enum PrometheusText {
    /// What this process's `/metrics` would answer now: for tests that run a service's parts in the test process.
    public static func ofThisProcess() -> String {
        String(decoding: Observability.renderMetrics(), as: UTF8.self)
    }

    /// The value of the sample `name` whose labels include every pair of `labels` (in any order, others allowed);
    /// nil when there is no such sample. The registry is shared by every test in the process, so compare the
    /// value before and after what the test does.
    public static func value(in text: String, name: String, labels: [String: String] = [:]) -> Double? {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let valueStart = line.lastIndex(of: " ") else { continue }
            let series = line[..<valueStart]
            let labelText: Substring
            if let open = series.firstIndex(of: "{") {
                guard series[..<open] == name, series.last == "}" else { continue }
                labelText = series[series.index(after: open)..<series.index(before: series.endIndex)]
            } else {
                guard series == name else { continue }
                labelText = ""
            }
            let delimited = ",\(labelText),"
            guard labels.allSatisfy({ delimited.contains(",\($0.key)=\"\($0.value)\",") }) else { continue }
            return Double(line[line.index(after: valueStart)...])
        }
        return nil
    }

    /// Every sample of `text`, keyed by its series as written (`name{label="value",…}`).
    public static func samples(in text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let valueStart = line.lastIndex(of: " "), let value = Double(line[line.index(after: valueStart)...]) else { continue }
            samples[String(line[..<valueStart])] = value
        }
        return samples
    }

    /// `value`, with 0 for a sample that has not appeared yet (a counter nothing has counted).
    public static func count(in text: String, name: String, labels: [String: String] = [:]) -> Double {
        value(in: text, name: name, labels: labels) ?? 0
    }
}
