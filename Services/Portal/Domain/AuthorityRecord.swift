/// A health authority as verification keeps it (`/version/v1/authorities`) and the authorities page shows it: what its
/// officers and issuers may issue, and its own limits beside the installation's.
public struct AuthorityRecord: Sendable, Equatable {
    public var id: String
    public var name: String
    /// Empty for every region the installation serves.
    public var regions: [String]
    /// The app families (`cwa`, `covidshield`, `protego`) its officers and issuers may issue codes for.
    public var families: [String]
    /// teleTANs and codes its officers may issue together in a clock hour (UTC); nil for no limit of its own.
    public var teleTANsPerHour: Int?
    /// The same per UTC day.
    public var teleTANsPerDay: Int?
    /// Codes each of its issuer keys may issue in a clock hour (UTC); nil for the installation's limit, which also
    /// bounds this one.
    public var issuerCodesPerHour: Int?
    /// The same per UTC day.
    public var issuerCodesPerDay: Int?
    public var disabled: Bool

    public init(
        id: String, name: String, regions: [String], families: [String], teleTANsPerHour: Int?, teleTANsPerDay: Int?,
        issuerCodesPerHour: Int? = nil, issuerCodesPerDay: Int? = nil, disabled: Bool
    ) {
        self.id = id
        self.name = name
        self.regions = regions
        self.families = families
        self.teleTANsPerHour = teleTANsPerHour
        self.teleTANsPerDay = teleTANsPerDay
        self.issuerCodesPerHour = issuerCodesPerHour
        self.issuerCodesPerDay = issuerCodesPerDay
        self.disabled = disabled
    }

    /// The families verification knows, in the order the page offers them.
    public static let knownFamilies = ["cwa", "covidshield", "protego"]
}
