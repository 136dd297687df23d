import ExposureRules

/// How an identity provider's token names the officer's health authority (`OIDC_AUTHORITY_CLAIM`): a claim holding
/// one string or a list of strings (a group claim), each read after an optional prefix (`OIDC_AUTHORITY_PREFIX`,
/// e.g. `/authorities/` for Keycloak groups). Exactly one authority must be named: a token naming none, or two, is
/// refused, so that nobody signs in to an authority by accident.
public struct AuthorityClaim: Sendable, Equatable {
    public let name: String
    public let prefix: String

    public init(name: String, prefix: String) {
        self.name = name
        self.prefix = prefix
    }

    /// The one authority id among `values` (the claim's string, or its list), or nil.
    public func authority(in values: [String]) -> String? {
        let named = Set(values.compactMap { value -> String? in
            guard value.hasPrefix(prefix) else { return nil }
            let id = String(value.dropFirst(prefix.count))
            return AuthorityID.isWellFormed(id) ? id : nil
        })
        return named.count == 1 ? named.first : nil
    }
}
