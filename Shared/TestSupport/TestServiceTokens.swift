import ExposureCore
import ExposureStack
import Foundation

/// The service tokens of the tests: every internal listener started through `TestServices.settings` accepts all of
/// them, and every calling service presents its own.
public enum TestServiceTokens {
    public static let submission = "test-token-submission-to-verification-0001"
    public static let portal = "test-token-portal-to-verification-00000001"
    public static let verification = "test-token-verification-to-testresult-001"
    public static let portalToTestResult = "test-token-portal-to-testresult-0000000001"
    /// What a test itself presents when it calls an internal listener as a service would.
    public static let tests = "test-token-of-the-tests-themselves-00000001"
    /// The portal's and the tests' tokens at the statistics APIs (`STATISTICS_API_TOKENS`).
    public static let portalStatistics = "test-token-portal-reads-statistics-000001"
    public static let statisticsReader = "test-token-tests-read-statistics-00000001"

    /// The token of the service that calls `path` on an internal listener (`CallerPermissions`), so that a test calls
    /// each route as the service it stands in for; the tests' own token for any other path.
    public static func token(forInternalPath path: String) -> String {
        if CallerPermissions.testResult.callers(of: path).first == CallerPermissions.Caller.portal { return portalToTestResult }
        let callers = CallerPermissions.verification.callers(of: path) + CallerPermissions.testResult.callers(of: path)
        switch callers.first {
        case CallerPermissions.Caller.submission: return submission
        case CallerPermissions.Caller.portal: return portal
        case CallerPermissions.Caller.verification: return verification
        default: return tests
        }
    }

    /// `INTERNAL_API_TOKENS` naming every caller above (the portal's second token under a name of its service).
    public static let internalAPITokens =
        "submission=\(submission),portal=\(portal),portal-testresult=\(portalToTestResult),verification=\(verification),tests=\(tests)"

    /// What `TestServices.settings` puts under a test's own settings: the tokens, every family on, and the keys the
    /// services need to serve (the stack's development keys, made once per test process in a private folder).
    public static let serviceDefaults: [String: String] = developmentKeys.merging([
        "MANAGEMENT_PORT": "0",
        // Verification's issuer listener, which a test reaches through the port it was given.
        "ISSUER_PORT": "0",
        "INTERNAL_API_TOKENS": internalAPITokens,
        "VERIFICATION_API_TOKEN": submission,
        "TESTRESULT_API_TOKEN": verification,
        "COVIDSHIELD_ENABLED": "true",
        "PROTEGO_ENABLED": "true",
        "ENX_ENABLED": "true",
    ]) { $1 }

    /// The portal's, submission's and verification's keys, as a stack names them.
    private static let developmentKeys: [String: String] = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("test-keys-\(UUID().uuidString)").path
        do {
            try StackDevelopmentKeys.create(for: [.portal, .submission, .verification], in: directory)
        } catch {
            fatalError("the tests' development keys cannot be made in \(directory): \(error)")
        }
        return [StackMember.portal, .submission, .verification].reduce(into: [:]) { variables, member in
            variables.merge(StackDevelopmentKeys.variables(for: member, in: directory)) { $1 }
        }
    }()
}
