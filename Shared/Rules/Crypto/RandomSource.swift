import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where codes, tokens and jitter get their randomness.
///
/// Production uses the operating system's CSPRNG; tests inject a seeded generator so that
/// generated codes and delays are reproducible.
public protocol RandomSource: Sendable {
    func bytes(count: Int) -> [UInt8]
    func uint64() -> UInt64
}

extension RandomSource {
    /// A uniformly distributed integer in `0..<upperBound`, without modulo bias.
    public func uniform(below upperBound: UInt64) -> UInt64 {
        precondition(upperBound > 0)
        let limit = UInt64.max - (UInt64.max % upperBound)
        while true {
            let value = uint64()
            if value < limit { return value % upperBound }
        }
    }

    /// A uniformly distributed double in `[0, 1)`.
    public func unitInterval() -> Double {
        Double(uint64() >> 11) * 0x1.0p-53
    }
}

/// The operating system's cryptographically secure generator (`getrandom(2)` on Linux).
public struct SystemRandomSource: RandomSource {
    public init() {}

    /// One system call per 256 bytes. (The standard library's generator, which swift-crypto's keys also use,
    /// makes one per eight, and every padded answer asks for about 250 bytes.)
    public func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0)
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            Self.fill(UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }

    private static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let start = buffer.baseAddress, buffer.count > 0 else { return }
        #if canImport(Darwin)
        arc4random_buf(start, buffer.count)
        #else
        // getentropy hands out at most 256 bytes per call.
        var offset = 0
        while offset < buffer.count {
            let chunk = min(256, buffer.count - offset)
            // Fails only where the kernel has no getrandom (Linux before 3.17): nothing safe to fall back to.
            guard getentropy(start + offset, chunk) == 0 else { fatalError("getentropy failed: errno \(errno)") }
            offset += chunk
        }
        #endif
    }

    public func uint64() -> UInt64 {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }
}

/// A deterministic generator (SplitMix64) for tests. Never use it to mint real secrets.
public final class SeededRandomSource: RandomSource, @unchecked Sendable {
    private let lock = NSLock()
    private var state: UInt64

    public init(seed: UInt64) { self.state = seed }

    public func uint64() -> UInt64 {
        lock.withLock {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    public func bytes(count: Int) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(count + 8)
        while result.count < count {
            withUnsafeBytes(of: uint64().littleEndian) { result.append(contentsOf: $0) }
        }
        return Array(result.prefix(count))
    }
}

/// Any `RandomSource` as a standard-library generator, for `shuffle(using:)` and `random(in:using:)`.
public struct RandomSourceGenerator: RandomNumberGenerator {
    private let source: any RandomSource

    public init(_ source: any RandomSource) { self.source = source }

    public mutating func next() -> UInt64 { source.uint64() }
}
