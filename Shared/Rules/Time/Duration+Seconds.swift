extension Duration {
    /// The duration as fractional seconds, for arithmetic with `Date`.
    public var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) / 1e18
    }
}
