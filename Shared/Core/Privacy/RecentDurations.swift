/// The most recent durations of one endpoint, oldest overwritten first, kept in arrival order and in sorted order.
///
/// Every answer asks for a quantile and every real request adds a sample, so both must be cheap: sorting the
/// window for each answer was 2.6 % of the verification service's instructions per poll (docs/benchmarks.md).
/// The sorted copy is updated in place instead, by a binary search and a shift of at most `capacity` values.
public struct RecentDurations: Sendable {
    public let capacity: Int
    /// In arrival order, a ring once full: `next` is the oldest.
    public private(set) var samples: [Double] = []
    private var next = 0
    private var sorted: [Double] = []

    public init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        samples.reserveCapacity(capacity)
        sorted.reserveCapacity(capacity)
    }

    public mutating func append(_ value: Double) {
        if samples.count < capacity {
            samples.append(value)
        } else {
            sorted.remove(at: Self.firstIndex(in: sorted, notBelow: samples[next]))
            samples[next] = value
            next = (next + 1) % capacity
        }
        sorted.insert(value, at: Self.firstIndex(in: sorted, notBelow: value))
    }

    /// One of the samples, drawn uniformly.
    public func sample(_ random: any RandomSource) -> Double? {
        guard !samples.isEmpty else { return nil }
        return samples[min(samples.count - 1, Int(random.unitInterval() * Double(samples.count)))]
    }

    /// The `q` quantile of the samples, the value at rank ⌊q·n⌋ of the sorted samples; nil when there are none.
    public func quantile(_ q: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        return sorted[min(sorted.count - 1, Int(q * Double(sorted.count)))]
    }

    public var mean: Double? {
        samples.isEmpty ? nil : samples.reduce(0, +) / Double(samples.count)
    }

    /// The index of the first element of `values` (ascending) that is not below `value`.
    private static func firstIndex(in values: [Double], notBelow value: Double) -> Int {
        var low = 0, high = values.count
        while low < high {
            let middle = (low + high) / 2
            if values[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
