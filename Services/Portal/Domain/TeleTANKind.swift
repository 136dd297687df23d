import ExposureRules

/// The two kinds of teleTAN and the role an officer needs for each (Keycloak realm roles of the reference).
public enum TeleTANKind: String, Sendable, CaseIterable {
    /// A positive test reported by phone.
    case test = "TEST"
    /// A warning for an event, on behalf of a health authority.
    case event = "EVENT"

    public var requiredRole: String {
        switch self {
        case .test: OfficerRoles.hotline
        case .event: OfficerRoles.eventHotline
        }
    }
}
