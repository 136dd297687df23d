import ExposureCore
import Foundation

/// Times real and fake requests interleaved in a random order, so that whatever else the machine does in the
/// meantime slows both alike, and compares the two latency distributions.
public enum LatencyComparison {
    /// The significance below which the two samples count as told apart.
    public static let significance = 0.01
    /// At most this many rounds of `count` real and `count` fake requests: callers size their inputs for it.
    public static let maxRounds = 3

    /// Sends `count` real and `count` fake requests in a shuffled order and compares their latencies.
    public static func measure(
        count: Int,
        seed: UInt64,
        real: (Int) async throws -> Void,
        fake: (Int) async throws -> Void
    ) async throws -> KolmogorovSmirnov {
        var order = Array(repeating: true, count: count) + Array(repeating: false, count: count)
        var generator = RandomSourceGenerator(SeededRandomSource(seed: seed))
        order.shuffle(using: &generator)
        var realTimes: [Double] = [], fakeTimes: [Double] = []
        for isReal in order {
            let start = ContinuousClock.now
            if isReal { try await real(realTimes.count) } else { try await fake(fakeTimes.count) }
            let seconds = (ContinuousClock.now - start).seconds
            if isReal { realTimes.append(seconds) } else { fakeTimes.append(seconds) }
        }
        print("  real \(summary(realTimes)); fake \(summary(fakeTimes))")
        return KolmogorovSmirnov(realTimes, fakeTimes)
    }

    /// Quartiles and the 95th percentile in milliseconds, to see which way two distributions differ.
    public static func summary(_ seconds: [Double]) -> String {
        let sorted = seconds.sorted()
        let quantiles = [0.25, 0.5, 0.75, 0.95].map { sorted[min(sorted.count - 1, Int($0 * Double(sorted.count)))] * 1_000 }
        return String(format: "ms p25 %.2f p50 %.2f p75 %.2f p95 %.2f", quantiles[0], quantiles[1], quantiles[2], quantiles[3])
    }

    /// Whether the fakes pass: a comparison at `significance`, repeated (independently) while it rejects, up to
    /// `maxRounds` rounds. A p-value below 0.01 happens once in a hundred runs by chance alone, three times in a row once
    /// in a million, while fakes that really differ are told apart every time. The repeats are there for shared
    /// machines: when another process starts loading the CPU, real work overruns its release time until the
    /// recent durations catch up (a few seconds), which a round that happens to span it detects.
    public static func indistinguishable(
        _ label: String,
        count: Int = 300,
        seed: UInt64,
        real: (Int) async throws -> Void,
        fake: (Int) async throws -> Void
    ) async throws -> (passed: Bool, rounds: [KolmogorovSmirnov]) {
        var rounds: [KolmogorovSmirnov] = []
        for round in 0..<maxRounds {
            let result = try await measure(count: count, seed: seed &+ UInt64(round), real: real, fake: fake)
            rounds.append(result)
            print("latency comparison \(label), round \(round + 1): \(result)")
            if result.pValue >= significance { return (true, rounds) }
        }
        return (false, rounds)
    }
}
