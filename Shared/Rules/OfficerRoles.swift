/// The realm roles of an officer's token (Keycloak's layout, `realm_access.roles`), as the portal grants them and
/// verification checks them: one list, so that the two services never spell a role differently.
public enum OfficerRoles {
    public static let hotline = "c19hotline"
    public static let eventHotline = "c19hotline_event"
    /// Hotline supervisors: they administer officers and read the statistics and the audit log; issuing teleTANs
    /// still takes one of the roles above.
    public static let supervisor = "c19supervisor"
    /// System administrators: they administer the health authorities (verification's `/version/v1/authorities`) and
    /// see all of them; any other officer sees only their own.
    public static let sysadmin = "c19sysadmin"
    /// The roles a local account may hold; anything else is a typo.
    public static let all: Set<String> = [hotline, eventHotline, supervisor]
}
