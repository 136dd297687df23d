/// What verification says a TAN was issued for (openapi/verification.yaml, `TanSource`): the family, the region of
/// the code it was minted from, and whether it came from an EVENT teleTAN. An upload path judges it with its
/// `UploadLane`.
public struct TANOrigin: Sendable, Equatable {
    public enum Source: String, Sendable, CaseIterable {
        /// A registered test (QR code): the Corona-Warn-App.
        case guid = "GUID"
        /// A teleTAN an officer issued: the Corona-Warn-App.
        case teleTAN = "TELETAN"
        /// The upload credential of a redeemed ProteGO PIN.
        case proteGO = "PROTEGO"
    }

    public let source: Source
    /// The region of the one-time code a `proteGO` TAN was minted from; nil for the Corona-Warn-App's TANs.
    public let region: String?
    /// It came from an EVENT teleTAN, which entitles a host warning, not key submission.
    public let isEvent: Bool

    public init(source: Source, region: String? = nil, isEvent: Bool = false) {
        self.source = source
        self.region = region
        self.isEvent = isEvent
    }
}
