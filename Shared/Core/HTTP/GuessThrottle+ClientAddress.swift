import ExposureRules

extension GuessThrottle.Origin {
    /// A client address as an origin of guesses: itself (an IPv6 address's /64) and its network (/24 or /48); without
    /// an address, one unknown source of one unknown network.
    public init(_ address: IPAddress?) {
        self.init(source: address?.rateLimitKey ?? [], network: address?.networkKey ?? [])
    }
}
