/// Which app families beside the Corona-Warn-App one an installation serves: `COVIDSHIELD_ENABLED`,
/// `PROTEGO_ENABLED` and `ENX_ENABLED` (default off; the LEMON family has its own `LEMON_ENABLED`, read by submission). Verification
/// and submission read the same variables: a disabled family's issuer endpoints, app endpoints and download output
/// are not there (404), its jobs do not run, and its keys need not be configured. The all-in-one suite enables all.
public struct AppFamilies: Sendable, Equatable {
    public var covidShield: Bool
    public var protego: Bool
    /// Exposure Notifications Express: Google's verification-server protocol (docs/enx.md).
    public var enx: Bool

    public init(covidShield: Bool, protego: Bool, enx: Bool = false) {
        self.covidShield = covidShield
        self.protego = protego
        self.enx = enx
    }

    public init(_ settings: Settings) throws(ConfigurationError) {
        covidShield = try settings.bool("COVIDSHIELD_ENABLED", default: false)
        protego = try settings.bool("PROTEGO_ENABLED", default: false)
        enx = try settings.bool("ENX_ENABLED", default: false)
    }
}
