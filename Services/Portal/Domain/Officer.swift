import ExposureRules

/// The signed-in officer, as a session knows them.
public struct Officer: Sendable, Equatable {
    public enum Source: String, Sendable {
        /// A local account, checked against its bcrypt hash.
        case local
        /// An account of the OpenID Connect provider.
        case oidc
    }

    /// The account name (local) or the provider's `preferred_username`, else `sub` (OIDC).
    public let name: String
    public let roles: Set<String>
    public let source: Source
    /// The health authority the officer belongs to (`AuthorityID`); nil for a system administrator, who belongs to
    /// none.
    public let authority: String?

    public init(name: String, roles: Set<String>, source: Source, authority: String?) {
        self.name = name
        self.roles = roles
        self.source = source
        self.authority = authority
    }

    /// Identifies the officer across sources, so a local `anna` and an OIDC `anna` are rate-limited apart.
    public var key: String { "\(source.rawValue):\(name)" }

    /// Issuing takes the kind's role and an authority to issue for (a system administrator has none).
    public func may(issue kind: TeleTANKind) -> Bool { authority != nil && roles.contains(kind.requiredRole) }

    public func may(issue kind: FamilyCodeKind) -> Bool { authority != nil && roles.contains(kind.requiredRole) }

    /// Supervisors administer officers and read statistics and the audit log.
    public var isSupervisor: Bool { roles.contains(OfficerRoles.supervisor) && authority != nil }

    /// System administrators create and disable authorities and read the national figures.
    public var isSystemAdministrator: Bool { roles.contains(OfficerRoles.systemAdministrator) }

    /// What the officer's supervisor pages may show: their authority's rows, every row for a system administrator,
    /// nothing for anyone else (an officer without an authority who is no system administrator).
    public var scope: AuthorityScope? {
        if isSystemAdministrator { return .national }
        return authority.map(AuthorityScope.authority)
    }
}
