import ExposureRules

/// What a teleTAN (and the TAN and session derived from it) is for.
public enum TeleTANType: String, Sendable, CaseIterable {
    /// A patient with a positive test reported by phone: may upload keys.
    case test = "TEST"
    /// An event host warning guests (event warnings): may not upload diagnosis keys.
    case event = "EVENT"

    /// The role an officer's token must carry to issue this type.
    public var requiredRole: String {
        switch self {
        case .test: OfficerRoles.hotline
        case .event: OfficerRoles.eventHotline
        }
    }
}

/// How a session was registered, and what a TAN came from.
public enum SessionSource: String, Sendable {
    case guid = "GUID"
    case teleTAN = "TELETAN"
    /// A TAN minted by redeeming a ProteGO PIN (`/version/v1/codes/redeem`): the app's upload credential. No session
    /// is ever registered from a PIN.
    case proteGO = "PROTEGO"
}
