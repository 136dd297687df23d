/// Which service presents which token to whom, in the suite: one token per calling service and callee.
struct SuiteServiceTokens {
    static let names = [
        "SUBMISSION_TO_VERIFICATION_TOKEN", "PORTAL_TO_VERIFICATION_TOKEN", "VERIFICATION_TO_TESTRESULT_TOKEN", "PORTAL_TO_TESTRESULT_TOKEN",
        "PORTAL_STATISTICS_TOKEN",
    ]

    let submissionToVerification: String
    let portalToVerification: String
    let verificationToTestResult: String
    let portalToTestResult: String
    /// The portal's token at the services' statistics APIs; also the one to read them by hand.
    let portalStatistics: String

    init(_ values: [String: String]) {
        submissionToVerification = values["SUBMISSION_TO_VERIFICATION_TOKEN"] ?? ""
        portalToVerification = values["PORTAL_TO_VERIFICATION_TOKEN"] ?? ""
        verificationToTestResult = values["VERIFICATION_TO_TESTRESULT_TOKEN"] ?? ""
        portalToTestResult = values["PORTAL_TO_TESTRESULT_TOKEN"] ?? ""
        portalStatistics = values["PORTAL_STATISTICS_TOKEN"] ?? ""
    }
}
