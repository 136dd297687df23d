/// What a verified TAN came from: its source (the family it was issued for) and, for a TAN minted from a one-time
/// code, the code's region. An upload path accepts only its own family's TANs (openapi/verification.yaml, `TanSource`).
public struct RedeemedTAN: Sendable, Equatable {
    public let source: SessionSource
    public let teleTANType: TeleTANType?
    /// The region of the code a `proteGO` TAN was minted from; nil for the Corona-Warn-App's TANs.
    public let region: String?

    public init(source: SessionSource, teleTANType: TeleTANType?, region: String? = nil) {
        self.source = source
        self.teleTANType = teleTANType
        self.region = region
    }
}
