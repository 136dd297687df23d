/// How an officer's token names the officer's health authority (`OFFICER_AUTHORITY_CLAIM`,
/// `OFFICER_DEFAULT_AUTHORITY`, docs/operations.md):
///
/// 1. the claim `authority`, a string, as the portal's tokens carry it;
/// 2. else, when `claim` names one (an identity provider's, say `groups`), that claim, a string or a list of strings,
///    of which exactly one must name a known authority (none, or two, is refused: an officer of two authorities
///    cannot be counted against one);
/// 3. else `defaultAuthority` (`default`, the authority an installation of before authorities migrated into); with
///    none, a token that names no authority is refused.
public struct OfficerAuthorityPolicy: Sendable, Equatable {
    public var claim: String?
    public var defaultAuthority: String?

    public init(claim: String? = nil, defaultAuthority: String? = Authority.defaultID) {
        self.claim = claim
        self.defaultAuthority = defaultAuthority
    }

    /// What names the authority of a token whose `authority` claim is `authorityClaim` and whose configured claim
    /// holds `configuredClaim` (nil when it is absent or no claim is configured).
    public func naming(authorityClaim: String?, configuredClaim: [String]?) -> AuthorityNaming {
        if let authorityClaim { return .named(authorityClaim) }
        if let configuredClaim { return .oneOf(configuredClaim) }
        if let defaultAuthority { return .named(defaultAuthority) }
        return .unnamed
    }
}

/// What a token says of its officer's authority; the API looks the names up (`AuthorityStore`).
public enum AuthorityNaming: Sendable, Equatable {
    /// This authority, by the claim `authority` or the default.
    case named(String)
    /// The values of the configured claim: the one of them that names a known authority.
    case oneOf([String])
    /// No authority, and no default to fall back to: refused.
    case unnamed

    /// The ids to look up.
    public var candidates: [String] {
        switch self {
        case .named(let id): [id]
        case .oneOf(let values): values
        case .unnamed: []
        }
    }

    /// The officer's authority among `known`, the candidates that name an authority: exactly one, else nil.
    public func choose(among known: [String]) -> String? {
        let found = Set(known).intersection(candidates)
        return found.count == 1 ? found.first : nil
    }
}
