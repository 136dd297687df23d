/// Metric handles made once per combination of dimension values, then reused.
///
/// `Counter(label:dimensions:)` asks the metrics factory every time: the Prometheus registry takes its lock,
/// validates the name and formats the labels. Made on every request, that was 2–3 % of a TAN verification's CPU
/// (fourteenth round, docs/benchmarks.md). swift-metrics expects handles to be kept; this keeps one per set of
/// values, which are few (route templates, status codes, outcomes), never identifiers.
public final class MetricHandles<Handle: Sendable>: Sendable {
    private let make: @Sendable (_ values: [String]) -> Handle
    private let handles = Memo<[String], Handle>()

    /// - Parameter make: builds the handle for one set of dimension values, in the order callers pass them.
    public init(make: @escaping @Sendable (_ values: [String]) -> Handle) {
        self.make = make
    }

    public func callAsFunction(_ values: String...) -> Handle {
        handles.value(for: values) { make(values) }
    }
}
