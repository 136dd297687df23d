import Foundation

/// A health authority: a tenant of the installation (Google's verification server calls it a realm). It has its
/// officers (their tokens name it, `OfficerAuthorityPolicy`), its issuers (`CodeIssuer.authority`), the app families
/// and regions it may issue codes for, and limits of its own beside the global ones. Verification keeps them
/// (`AuthorityStore`) because it enforces them; the portal administers them through `/version/v1/authorities`,
/// operators with `verification-service authorities`.
public struct Authority: Sendable, Equatable {
    public var id: String
    public var settings: AuthoritySettings
    /// Unix seconds.
    public var createdAt: Int64

    public init(id: String, settings: AuthoritySettings, createdAt: Int64) {
        self.id = id
        self.settings = settings
        self.createdAt = createdAt
    }

    /// The authority every installation has: the one an installation of before authorities migrated into, whose
    /// officers' tokens name no authority (`OFFICER_DEFAULT_AUTHORITY`).
    public static let defaultID = "default"

    /// Whether its officers and issuers may issue codes of `family` now.
    public func issues(_ family: AppFamily) -> Bool {
        !settings.disabled && settings.families.contains(family)
    }

    /// Whether its codes may be issued for `region`: one of its regions, or any when it lists none.
    public func serves(region: String) -> Bool {
        settings.regions.isEmpty || settings.regions.contains(region)
    }
}

/// What is set of an authority: what it may issue, its limits, whether it is disabled.
public struct AuthoritySettings: Sendable, Equatable {
    public var name: String
    /// Empty for every region the installation serves.
    public var regions: [String]
    public var families: Set<AppFamily>
    /// teleTANs and codes its officers may issue together in a clock hour (UTC) and in a UTC day; nil for no limit of
    /// its own (the global and per-officer limits still hold).
    public var teleTANsPerHour: Int?
    public var teleTANsPerDay: Int?
    /// Codes each of its issuer keys may issue in a clock hour (UTC) and in a UTC day; nil for the installation's
    /// (`ISSUER_CODES_PER_HOUR`, `ISSUER_CODES_PER_DAY`). The installation's stay the ceiling: a key obeys the lower.
    public var issuerCodesPerHour: Int?
    public var issuerCodesPerDay: Int?
    public var disabled: Bool

    public init(
        name: String, regions: [String] = [], families: Set<AppFamily> = Set(AppFamily.allCases),
        teleTANsPerHour: Int? = nil, teleTANsPerDay: Int? = nil,
        issuerCodesPerHour: Int? = nil, issuerCodesPerDay: Int? = nil, disabled: Bool = false
    ) {
        self.name = name
        self.regions = regions
        self.families = families
        self.teleTANsPerHour = teleTANsPerHour
        self.teleTANsPerDay = teleTANsPerDay
        self.issuerCodesPerHour = issuerCodesPerHour
        self.issuerCodesPerDay = issuerCodesPerDay
        self.disabled = disabled
    }

    public static let maxRegions = 32
    public static let perHourRange = 1...1_000_000
    public static let perDayRange = 1...10_000_000

    /// The first thing wrong with these settings, as a sentence for a 400 or a command's error; nil when they are
    /// valid.
    public var problem: String? {
        let nameLength = name.count
        if nameLength < 1 || nameLength > 100 || name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            return "name has 1 to 100 characters, not only blanks."
        }
        if regions.count > Self.maxRegions { return "regions lists at most \(Self.maxRegions) regions." }
        if let bad = regions.first(where: { !OneTimeCodeRegions.isValid($0) }) {
            return "regions: '\(bad)' is no region (1 to 16 letters, digits, '_' or '-')."
        }
        if Set(regions).count != regions.count { return "regions lists a region twice." }
        if let perHour = teleTANsPerHour, !Self.perHourRange.contains(perHour) {
            return "teleTansPerHour is \(Self.perHourRange.lowerBound) to \(Self.perHourRange.upperBound)."
        }
        if let perDay = teleTANsPerDay, !Self.perDayRange.contains(perDay) {
            return "teleTansPerDay is \(Self.perDayRange.lowerBound) to \(Self.perDayRange.upperBound)."
        }
        if let perHour = issuerCodesPerHour, !Self.perHourRange.contains(perHour) {
            return "issuerCodesPerHour is \(Self.perHourRange.lowerBound) to \(Self.perHourRange.upperBound)."
        }
        if let perDay = issuerCodesPerDay, !Self.perDayRange.contains(perDay) {
            return "issuerCodesPerDay is \(Self.perDayRange.lowerBound) to \(Self.perDayRange.upperBound)."
        }
        return nil
    }
}
