/// The service tokens of a stack: one per calling service and callee, each presented by the caller and accepted
/// by the callee's internal listener (`INTERNAL_API_TOKENS`).
public struct StackTokens: Sendable {
    public var submissionToVerification: String
    public var portalToVerification: String
    public var verificationToTestResult: String
    /// The portal's at test-result, where system administrators administer the labs' credentials.
    public var portalToTestResult: String
    /// Further callers every internal listener accepts, by name (tests calling as a service would).
    public var alsoAccepted: [String: String]
    /// The readers of the statistics APIs (`STATISTICS_API_TOKENS` of every counting service), by name; the portal
    /// reads with the token named `portal` (`STATISTICS_API_TOKEN`).
    public var statisticsReaders: [String: String]

    public init(
        submissionToVerification: String, portalToVerification: String, verificationToTestResult: String, portalToTestResult: String,
        alsoAccepted: [String: String] = [:], statisticsReaders: [String: String] = [:]
    ) {
        self.submissionToVerification = submissionToVerification
        self.portalToVerification = portalToVerification
        self.verificationToTestResult = verificationToTestResult
        self.portalToTestResult = portalToTestResult
        self.alsoAccepted = alsoAccepted
        self.statisticsReaders = statisticsReaders
    }

    /// `STATISTICS_API_TOKENS` of a counting service; nil when the stack has no readers.
    var statisticsTokens: String? {
        guard !statisticsReaders.isEmpty else { return nil }
        return statisticsReaders.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
    }

    /// `INTERNAL_API_TOKENS` of `member`: its callers, then the extra ones, sorted by name so it reads the same
    /// every time.
    func accepted(by member: StackMember) -> String {
        var callers = alsoAccepted
        switch member {
        case .testResult:
            callers["verification"] = verificationToTestResult
            callers["portal"] = portalToTestResult
        case .verification:
            callers["submission"] = submissionToVerification
            callers["portal"] = portalToVerification
        case .submission, .portal:
            break
        }
        return callers.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
    }
}
