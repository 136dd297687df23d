/// The realm roles of an officer's token (Keycloak's layout, `realm_access.roles`), as the portal grants them and
/// verification checks them: one list, so that the two services never spell a role differently.
public enum OfficerRoles {
    public static let hotline = "c19hotline"
    public static let eventHotline = "c19hotline_event"
    /// Hotline supervisors: they administer their health authority's officers and read its statistics and audit log;
    /// issuing teleTANs still takes one of the roles above.
    public static let supervisor = "c19supervisor"
    /// System administrators: above the health authorities, they create and disable them (verification's
    /// `/version/v1/authorities`) and read the national statistics and every authority's audit log. They belong to
    /// no authority and issue nothing.
    public static let systemAdministrator = "c19sysadmin"
    /// The roles a local account may hold; anything else is a typo.
    public static let all: Set<String> = [hotline, eventHotline, supervisor, systemAdministrator]
    /// The roles an authority's supervisor may give: never the system administrator's.
    public static let authorityRoles: Set<String> = [hotline, eventHotline, supervisor]
}
