/// A teleTAN or one-time code as its officer sees it afterwards (`/version/v1/codes/issued`): never the code, only its
/// public id, kind, times and whether it was used, to the hour.
public struct IssuedCode: Sendable, Equatable {
    public enum Status: String, Sendable {
        case unused
        case used
        case expired
    }

    /// A random UUID v4 (`Codes.uuidV4`), unrelated to the code: what the officer names the code by to expire it.
    public let id: String
    /// `TEST` or `EVENT` for a teleTAN, `COVIDSHIELD` or `PROTEGO` for a one-time code.
    public let kind: String
    /// Unix seconds.
    public let issuedAt: Int64
    public let validUntil: Int64
    public let redeemedAt: Int64?
    public let officer: String?

    public init(id: String, kind: String, issuedAt: Int64, validUntil: Int64, redeemedAt: Int64?, officer: String?) {
        self.id = id
        self.kind = kind
        self.issuedAt = issuedAt
        self.validUntil = validUntil
        self.redeemedAt = redeemedAt
        self.officer = officer
    }

    /// How long an officer sees the codes they issued.
    public static let listedDays: Int64 = 7

    public func status(at now: Int64) -> Status {
        if redeemedAt != nil { return .used }
        return validUntil > now ? .unused : .expired
    }

    /// When it was used, to the hour (Unix seconds at the hour's start): no finer, so that the time cannot be matched
    /// with one phone's registration or upload.
    public var usedHour: Int64? {
        redeemedAt.map { $0 - (($0 % 3600) + 3600) % 3600 }
    }
}
