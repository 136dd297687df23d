/// The variables that connect the services of a stack: the only place that knows who calls whom.
enum StackWiring {
    /// The settings of `member`: the wiring, then the plan's own variables for it.
    /// - Parameters:
    ///   - upstreams: the internal URL of every member already started (or reached `elsewhere`).
    ///   - portalKey: verification's entry for the portal's signing key (`path|issuer|audience`), when the portal
    ///     is part of the stack.
    ///   - statistics: the management URL of every counting member already started, where the portal reads its
    ///     statistics.
    static func variables(
        for member: StackMember, in plan: StackPlan, upstreams: [StackMember: String], portalKey: String?,
        statistics: [StackMember: String] = [:]
    ) -> [String: String] {
        // The development keys first: the wiring and the plan's own settings win over them.
        var variables = StackDevelopmentKeys.variables(for: member, in: plan.dataDirectory)
        variables["BIND_HOST"] = plan.bindHost
        if let database = plan.databases[member] { variables["DATABASE_URL"] = database }
        if member.hasInternalListener { variables["INTERNAL_API_TOKENS"] = plan.tokens.accepted(by: member) }
        if member.countsStatistics, let readers = plan.tokens.statisticsTokens { variables["STATISTICS_API_TOKENS"] = readers }
        switch member {
        case .testResult:
            break
        case .verification:
            if let testResult = upstreams[.testResult] { variables["TESTRESULT_URL"] = testResult }
            variables["TESTRESULT_API_TOKEN"] = plan.tokens.verificationToTestResult
            let trusted = (portalKey.map { [$0] } ?? []) + plan.trustedOfficerKeys
            if !trusted.isEmpty { variables["JWT_PUBLIC_KEY_FILES"] = trusted.joined(separator: ",") }
        case .submission:
            if let verification = upstreams[.verification] { variables["VERIFICATION_URL"] = verification }
            variables["VERIFICATION_API_TOKEN"] = plan.tokens.submissionToVerification
            variables["DATA_DIR"] = plan.dataDirectory
        case .portal:
            if let verification = upstreams[.verification] { variables["VERIFICATION_URL"] = verification }
            variables["VERIFICATION_API_TOKEN"] = plan.tokens.portalToVerification
            if let testResult = upstreams[.testResult] { variables["TESTRESULT_URL"] = testResult }
            variables["TESTRESULT_API_TOKEN"] = plan.tokens.portalToTestResult
            if let token = plan.tokens.statisticsReaders["portal"] { variables["STATISTICS_API_TOKEN"] = token }
            for (source, url) in statistics { variables["\(source.environmentPrefix)_STATISTICS_URL"] = url }
        }
        variables.merge(plan.variables[member] ?? [:]) { $1 }
        return variables
    }
}
