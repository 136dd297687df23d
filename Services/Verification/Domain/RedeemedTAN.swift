/// What a verified TAN came from.
public struct RedeemedTAN: Sendable, Equatable {
    public let source: SessionSource
    public let teleTANType: TeleTANType?

    public init(source: SessionSource, teleTANType: TeleTANType?) {
        self.source = source
        self.teleTANType = teleTANType
    }
}
