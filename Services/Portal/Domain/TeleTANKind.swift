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

public enum OfficerRoles {
    public static let hotline = "c19hotline"
    public static let eventHotline = "c19hotline_event"
    /// Hotline supervisors: they administer officers and read the statistics and the audit log; issuing teleTANs
    /// still takes one of the roles above.
    public static let supervisor = "c19supervisor"
    /// System administrators: above the health authorities, they create and disable them and appoint their first
    /// supervisors, and read the national statistics and audit log. They belong to no authority and issue nothing.
    public static let systemAdministrator = "c19sysadmin"
    /// The roles a local account may hold; anything else is a typo.
    public static let all: Set<String> = [hotline, eventHotline, supervisor, systemAdministrator]
    /// The roles an authority's supervisor may give: never the system administrator's.
    public static let authorityRoles: Set<String> = [hotline, eventHotline, supervisor]
}
