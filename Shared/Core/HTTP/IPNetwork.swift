/// An address range in CIDR form (`10.0.0.0/8`, `2001:db8::/32`), or one address (`192.0.2.1`).
public struct IPNetwork: Hashable, Sendable {
    public let address: IPAddress
    public let prefixLength: Int

    public init?(_ text: some StringProtocol) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, let address = IPAddress(parts[0]) else { return nil }
        let writtenBits = parts[0].contains(":") ? 128 : 32
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...writtenBits).contains(length) else { return nil }
            // An IPv4 range written in IPv6 form (`::ffff:10.0.0.0/104`) keeps its meaning for the IPv4 address.
            let prefix = address.isIPv4 && writtenBits == 128 ? length - 96 : length
            guard prefix >= 0 else { return nil }
            prefixLength = prefix
        } else {
            prefixLength = address.bytes.count * 8
        }
        self.address = address
    }

    public func contains(_ other: IPAddress) -> Bool {
        guard other.bytes.count == address.bytes.count else { return false }
        var remaining = prefixLength
        for (a, b) in zip(address.bytes, other.bytes) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if a & mask != b & mask { return false }
            remaining -= 8
        }
        return true
    }
}
