/// A teleTAN or code an officer issued, as verification lists it (`/version/v1/codes/issued`): its public id, never
/// the code.
public struct IssuedCodeRecord: Sendable, Equatable {
    public enum Status: String, Sendable {
        case unused
        case used
        case expired
    }

    public let id: String
    /// `TEST`, `EVENT`, `COVIDSHIELD` or `PROTEGO`.
    public let kind: String
    /// Unix seconds.
    public let issuedAt: Int64
    public let validUntil: Int64
    public let status: Status
    /// The start of the hour it was used in.
    public let usedHour: Int64?
    public let officer: String?

    public init(id: String, kind: String, issuedAt: Int64, validUntil: Int64, status: Status, usedHour: Int64?, officer: String?) {
        self.id = id
        self.kind = kind
        self.issuedAt = issuedAt
        self.validUntil = validUntil
        self.status = status
        self.usedHour = usedHour
        self.officer = officer
    }
}
