import Foundation

/// The two-sample Kolmogorov–Smirnov test: could two samples come from the same distribution?
///
/// The statistic is the largest distance between the two empirical distribution functions; the p-value is the
/// asymptotic Kolmogorov distribution's tail at the effective sample size, with the usual small-sample
/// correction (Stephens 1970), which is accurate to a few percent from about twenty values per sample.
public struct KolmogorovSmirnov: Sendable, CustomStringConvertible {
    public let statistic: Double
    public let pValue: Double
    public let sizes: (Int, Int)

    public init(_ first: [Double], _ second: [Double]) {
        precondition(!first.isEmpty && !second.isEmpty)
        let a = first.sorted(), b = second.sorted()
        var i = 0, j = 0, distance = 0.0
        while i < a.count && j < b.count {
            // Step past every copy of the smaller value in both samples before comparing, so ties count once.
            let value = min(a[i], b[j])
            while i < a.count && a[i] == value { i += 1 }
            while j < b.count && b[j] == value { j += 1 }
            distance = max(distance, abs(Double(i) / Double(a.count) - Double(j) / Double(b.count)))
        }
        statistic = distance
        sizes = (a.count, b.count)
        let effective = (Double(a.count * b.count) / Double(a.count + b.count)).squareRoot()
        pValue = Self.kolmogorovTail((effective + 0.12 + 0.11 / effective) * distance)
    }

    /// P(K > λ) for the Kolmogorov distribution: 2 Σ (-1)^(k-1) exp(-2 k² λ²).
    public static func kolmogorovTail(_ lambda: Double) -> Double {
        guard lambda > 0.2 else { return 1 }
        var sum = 0.0
        for k in 1...100 {
            let term = exp(-2 * Double(k * k) * lambda * lambda)
            sum += (k % 2 == 1 ? 1 : -1) * term
            if term < 1e-12 { break }
        }
        return min(1, max(0, 2 * sum))
    }

    public var description: String {
        String(format: "D = %.4f, p = %.4f (n = %d, m = %d)", statistic, pValue, sizes.0, sizes.1)
    }
}
