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

    public init(name: String, roles: Set<String>, source: Source) {
        self.name = name
        self.roles = roles
        self.source = source
    }

    /// Identifies the officer across sources, so a local `anna` and an OIDC `anna` are rate-limited apart.
    public var key: String { "\(source.rawValue):\(name)" }

    public func may(issue kind: TeleTANKind) -> Bool { roles.contains(kind.requiredRole) }

    public func may(issue kind: FamilyCodeKind) -> Bool { roles.contains(kind.requiredRole) }

    /// Supervisors administer officers and read statistics and the audit log.
    public var isSupervisor: Bool { roles.contains(OfficerRoles.supervisor) }
}
