import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as bytes (4 or 16). An IPv4 address written as IPv6 (`::ffff:192.0.2.1`) is the IPv4
/// address, so that one client has one form whichever way a listener or proxy spells it.
public struct IPAddress: Hashable, Sendable {
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]
        self.bytes = bytes.count == 16 && Array(bytes.prefix(12)) == mappedPrefix ? Array(bytes.suffix(4)) : bytes
    }

    /// Parses an address as listeners and `X-Forwarded-For` write it: `192.0.2.1`, `2001:db8::1`, and also with a
    /// port (`192.0.2.1:443`, `[2001:db8::1]:443`) or a zone (`fe80::1%eth0`).
    public init?(_ text: some StringProtocol) {
        var host = text.trimmingCharacters(in: .whitespaces)
        if host.hasPrefix("[") {
            guard let end = host.firstIndex(of: "]") else { return nil }
            host = String(host[host.index(after: host.startIndex)..<end])
        } else if host.filter({ $0 == ":" }).count == 1 {
            host = String(host.prefix { $0 != ":" })
        }
        if let zone = host.firstIndex(of: "%") { host = String(host[..<zone]) }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            self.init(bytes: withUnsafeBytes(of: &v4) { Array($0) })
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return nil }
        self.init(bytes: withUnsafeBytes(of: &v6) { Array($0) })
    }

    public var isIPv4: Bool { bytes.count == 4 }

    /// What rate limits key on: the whole IPv4 address, the /64 network of an IPv6 one (one subscriber's line is
    /// given a /64 or more, so finer keys would let one client count as billions).
    public var rateLimitKey: [UInt8] { isIPv4 ? bytes : Array(bytes.prefix(8)) }

    /// The network a source belongs to, for the middle tier of guess limits (`GuessThrottle`): an IPv4 address's /24
    /// (the smallest block routed between networks) and an IPv6 address's /48 (a site's usual allocation, 65,536
    /// /64s). Prefixed with the family, so that no IPv4 /24 equals the start of an IPv6 prefix.
    public var networkKey: [UInt8] { isIPv4 ? [4] + bytes.prefix(3) : [6] + bytes.prefix(6) }
}
