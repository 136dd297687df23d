/// Which services to start, on which databases, and what to set beside the wiring a stack does itself.
///
/// The wiring (`StackWiring`) is the part every stack shares: who calls whom at which URL with which token, and
/// verification trusting the portal's signing key. Everything else is a service's own setting, given per member in
/// `variables`, which wins over the wiring.
public struct StackPlan: Sendable {
    /// The services to start; they start in `StackMember` order whatever the order here.
    public var members: [StackMember]
    /// `DATABASE_URL` of each member.
    public var databases: [StackMember: String]
    public var tokens: StackTokens
    /// Where the portal keeps its generated signing key and submission its data (`DATA_DIR`).
    public var dataDirectory: String
    public var bindHost: String
    /// Keys verification trusts beside the portal's (`path|issuer|audience`, as in `JWT_PUBLIC_KEY_FILES`).
    public var trustedOfficerKeys: [String]
    /// Where a member that this stack does not start is reached instead (its internal URL), e.g. an
    /// unreachable test-result for tests of verification alone.
    public var elsewhere: [StackMember: String]
    /// Called once a member is up, with its internal URL; answers the URL its callers use instead (a proxy
    /// in front of it, for fault tests).
    public var reroute: [StackMember: @Sendable (String) async throws -> String]
    /// Each member's own settings, over the wiring.
    public var variables: [StackMember: [String: String]]

    public init(
        members: [StackMember] = StackMember.allCases,
        databases: [StackMember: String],
        tokens: StackTokens,
        dataDirectory: String,
        bindHost: String = "127.0.0.1",
        trustedOfficerKeys: [String] = [],
        elsewhere: [StackMember: String] = [:],
        reroute: [StackMember: @Sendable (String) async throws -> String] = [:],
        variables: [StackMember: [String: String]] = [:]
    ) {
        self.members = members
        self.databases = databases
        self.tokens = tokens
        self.dataDirectory = dataDirectory
        self.bindHost = bindHost
        self.trustedOfficerKeys = trustedOfficerKeys
        self.elsewhere = elsewhere
        self.reroute = reroute
        self.variables = variables
    }
}

extension StackPlan {
    /// The settings of `member` apart from the URLs of the others: what a command run beside the stack needs
    /// (adding a lab, reading the export key), before or without starting it.
    public func settings(of member: StackMember) -> [String: String] {
        StackWiring.variables(for: member, in: self, upstreams: elsewhere, portalKey: nil)
    }
}
