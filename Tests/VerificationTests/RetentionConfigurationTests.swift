import ExposureCore
import ExposureTestSupport
import Foundation
import Testing
@testable import TestResult
@testable import Verification

/// A used test must be remembered as long as its result is kept, or a known positive GUID can be registered again
/// and mint new TANs (the reference's known hole). Both services refuse a configuration that allows it.
@Suite struct RetentionConfigurationTests {
    static let tokens = [
        "INTERNAL_API_TOKENS": TestServiceTokens.internalAPITokens, "TESTRESULT_API_TOKEN": TestServiceTokens.verification,
        "TELETAN_HASH_KEYS": TestServices.teleTANHashKeys,
    ]

    @Test func verificationRefusesToForgetUsedTestsBeforeTheirResults() throws {
        #expect(throws: ConfigurationError(
            variable: "USED_KEY_RETENTION",
            reason: "must not be shorter than RESULT_DELETE_AFTER (\(Duration.seconds(60 * 86400))), how long test-result keeps a result"
        )) {
            try VerificationConfiguration(Settings(arguments: ["test"], environment: Self.tokens.merging(["USED_KEY_RETENTION": "30d"]) { $1 }))
        }
        #expect(throws: ConfigurationError.self) {
            try VerificationConfiguration(Settings(arguments: ["test"], environment: Self.tokens.merging(["RESULT_DELETE_AFTER": "61d"]) { $1 }))
        }
        let shorter = try VerificationConfiguration(Settings(arguments: ["test"], environment: Self.tokens.merging([
            "USED_KEY_RETENTION": "30d", "RESULT_DELETE_AFTER": "30d", "RESULT_REDEEM_AFTER": "21d",
        ]) { $1 }))
        #expect(shorter.lifetimes.usedKeyRetention == .seconds(30 * 86400))
    }

    @Test func testResultRefusesToKeepResultsLongerThanUsedTestsAreRemembered() throws {
        #expect(throws: ConfigurationError.self) {
            try TestResultConfiguration(Settings(arguments: ["test"], environment: Self.tokens.merging(["RESULT_DELETE_AFTER": "90d"]) { $1 }))
        }
        #expect(throws: ConfigurationError.self) {
            try TestResultConfiguration(Settings(arguments: ["test"], environment: Self.tokens.merging(["USED_KEY_RETENTION": "30d"]) { $1 }))
        }
        let longer = try TestResultConfiguration(Settings(arguments: ["test"], environment: Self.tokens.merging([
            "RESULT_DELETE_AFTER": "90d", "USED_KEY_RETENTION": "90d",
        ]) { $1 }))
        #expect(longer.retention.deleteAfter == .seconds(90 * 86400))
    }

    /// Without the callers' tokens neither internal listener could answer anyone: the services refuse to serve
    /// (their administration commands and `migrate` need none).
    @Test func internalListenersNeedTheirCallers() async throws {
        let environment = TestServices.environment()
        let withoutCallers = try VerificationConfiguration(Settings(arguments: ["test"], environment: [
            "TESTRESULT_API_TOKEN": TestServiceTokens.verification, "DATABASE_URL": "sqlite::memory:",
            "TELETAN_HASH_KEYS": TestServices.teleTANHashKeys,
        ]))
        await #expect(throws: ServiceTokens.missing("INTERNAL_API_TOKENS")) {
            _ = try await VerificationService.makeBundle(withoutCallers, environment: environment)
        }
        let withoutToken = try VerificationConfiguration(Settings(arguments: ["test"], environment: [
            "INTERNAL_API_TOKENS": TestServiceTokens.internalAPITokens, "DATABASE_URL": "sqlite::memory:",
            "TELETAN_HASH_KEYS": TestServices.teleTANHashKeys,
        ]))
        await #expect(throws: ServiceTokens.missing("TESTRESULT_API_TOKEN")) {
            _ = try await VerificationService.makeBundle(withoutToken, environment: environment)
        }
        let testResult = try TestResultConfiguration(Settings(arguments: ["test"], environment: ["DATABASE_URL": "sqlite::memory:"]))
        #expect(testResult.internalCallers == nil)
        await #expect(throws: ServiceTokens.missing("INTERNAL_API_TOKENS")) {
            _ = try await TestResultService.makeBundle(testResult, environment: environment)
        }
        #expect(throws: ConfigurationError.self) {
            try TestResultConfiguration(Settings(arguments: ["test"], environment: ["INTERNAL_API_TOKENS": "verification=short"]))
        }
    }
}
