import HTTPTypes

/// The address of the client a request comes from, for limits per source. Never logged, stored or counted in a
/// metric: rate limiters keep only a keyed hash of its `rateLimitKey` (`SourceRateLimiter`).
public enum ClientAddress {
    /// The client of the request being handled; nil outside a listener that resolves it
    /// (`HTTPListener(…, clientAddresses:)`), or when the connection has no IP address.
    @TaskLocal public static var current: IPAddress?
}

/// Decides which address a request comes from: the connection's peer, unless the peer is a trusted proxy, in which
/// case `X-Forwarded-For` is believed from the right as far as it names trusted proxies, and the first address that
/// is not one is the client. A client cannot choose its own key: behind no trusted proxy the header is ignored, and
/// behind one only the entries the proxies appended count.
public struct ClientAddressResolver: Sendable {
    public let trustedProxies: [IPNetwork]

    public init(trustedProxies: [IPNetwork] = []) {
        self.trustedProxies = trustedProxies
    }

    public func client(peer: IPAddress?, forwardedFor headers: [String]) -> IPAddress? {
        guard var client = peer, isTrusted(client) else { return peer }
        let hops = headers.flatMap { $0.split(separator: ",") }
        for hop in hops.reversed() {
            // An entry that is not an address ends what can be believed: the client is the last proxy that wrote one.
            guard let address = IPAddress(hop) else { return client }
            client = address
            if !isTrusted(address) { return address }
        }
        return client
    }

    private func isTrusted(_ address: IPAddress) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }
}

extension ClientAddressResolver {
    /// The `X-Forwarded-For` header fields of a request, in order.
    public static func forwardedFor(_ fields: HTTPFields) -> [String] {
        fields[values: HTTPField.Name("X-Forwarded-For")!]
    }
}
