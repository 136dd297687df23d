import ExposureCore
import ExposureTestSupport
import Foundation
@testable import SubmissionDomain
import Testing

@testable import Submission
@testable import SubmissionCore

@Suite struct SubmissionConfigurationTests {
    @Test func defaults() throws {
        let configuration = try SubmissionConfiguration(TestServices.settings([:]))
        #expect(configuration.common.databaseURL == .sqliteFile("data/submission.db"))
        // Larger than the other services' 8: each submission holds a connection while verification answers.
        #expect(configuration.common.databasePoolSize == 32)
        #expect(configuration.listener.port == 8030)
        #expect(configuration.verificationURL.absoluteString == "http://localhost:8011")
        #expect(configuration.verification.timeout == .seconds(3))
        #expect(configuration.verification.attempts == 3)
        #expect(configuration.maxBodyBytes == 100_000)
        #expect(configuration.rules.maxKeys == 14)
        #expect(configuration.rules.homeCountry == "DE")
        #expect(configuration.rules.supportedCountries == Set(Countries.europeanDefault))
        #expect(configuration.rules.supportedCountries.contains("DE") && configuration.rules.supportedCountries.count == 30)
        #expect(configuration.rules.retentionDays == 14)
        #expect(configuration.rules.riskMapping == .standard)
        #expect(configuration.keyPaddingMultiplier == 1)
        #expect(configuration.retentionInterval == .seconds(3600))
        #expect(configuration.verificationToken == TestServiceTokens.submission)
        // Without the tests' defaults: the management listener on loopback, port 8032.
        let plain = try SubmissionConfiguration(Settings(arguments: ["test"], environment: ["VERIFICATION_API_TOKEN": TestServiceTokens.submission]))
        #expect(plain.common.managementListener == ListenerAddress(host: "127.0.0.1", port: 8032))
        // `migrate` and `distribute` need no token; serving does (`SubmissionService.makeBundle`).
        #expect(try SubmissionConfiguration(Settings(arguments: ["test"], environment: [:])).verificationToken == nil)
        #expect(throws: ConfigurationError.self) {
            try SubmissionConfiguration(Settings(arguments: ["test"], environment: ["VERIFICATION_API_TOKEN": "short"]))
        }
    }

    @Test func overrides() throws {
        let configuration = try SubmissionConfiguration(TestServices.settings([
            "PORT": "9000", "VERIFICATION_URL": "https://verification.internal:8443", "VERIFICATION_TIMEOUT": "500ms",
            "VERIFICATION_ATTEMPTS": "2", "MAX_BODY_BYTES": "50000", "MAX_KEYS": "15", "HOME_COUNTRY": "AT",
            "SUPPORTED_COUNTRIES": "AT, DE", "RETENTION_DAYS": "10", "KEY_PADDING_MULTIPLIER": "5",
            "DSOS_TO_TRL": "-14..4000:3", "TRL_TO_DSOS": "1:1,2:2,3:3,4:4,5:5,6:6,7:7,8:8",
            "RETENTION_INTERVAL": "15m", "MANAGEMENT_PORT": "9002", "MANAGEMENT_BIND_HOST": "10.0.0.5",
            "VERIFICATION_API_TOKEN": String(repeating: "t", count: 32),
        ]))
        #expect(configuration.listener.port == 9000)
        #expect(configuration.verificationURL.host == "verification.internal")
        #expect(configuration.verification.timeout == .milliseconds(500))
        #expect(configuration.verification.attempts == 2)
        #expect(configuration.maxBodyBytes == 50_000)
        #expect(configuration.rules.maxKeys == 15)
        #expect(configuration.rules.homeCountry == "AT")
        #expect(configuration.rules.supportedCountries == ["AT", "DE"])
        #expect(configuration.rules.retentionDays == 10)
        #expect(configuration.rules.riskMapping.riskLevel(forDaysSinceOnset: 0) == 3)
        #expect(configuration.rules.riskMapping.daysSinceOnset(forRiskLevel: 8) == 8)
        #expect(configuration.keyPaddingMultiplier == 5)
        #expect(configuration.retentionInterval == .seconds(900))
        #expect(configuration.common.managementListener == ListenerAddress(host: "10.0.0.5", port: 9002))
        #expect(configuration.verificationToken == String(repeating: "t", count: 32))
    }

    @Test(arguments: [
        ("VERIFICATION_URL", "localhost:8011"),
        ("VERIFICATION_TIMEOUT", "soon"),
        ("RECOVERY_INTERVAL", "0s"),
        ("MAX_BODY_BYTES", "10"),
        ("MAX_KEYS", "0"),
        ("HOME_COUNTRY", "Germany"),
        ("SUPPORTED_COUNTRIES", "DE,fr"),
        ("SUPPORTED_COUNTRIES", "FR,IT"),  // without the home country
        ("RETENTION_DAYS", "0"),
        ("KEY_PADDING_MULTIPLIER", "0"),
        ("DSOS_TO_TRL", "-14..0:1"),
        ("TRL_TO_DSOS", "1:0"),
    ])
    func badValuesNameTheirVariable(variable: String, value: String) throws {
        do {
            _ = try SubmissionConfiguration(TestServices.settings([variable: value]))
            Issue.record("\(variable)=\(value) was accepted")
        } catch {
            #expect(error.variable == variable)
        }
    }

    /// No transaction waits on verification any more, so its timeouts are free of the database's; the recovery job
    /// runs every minute unless told otherwise.
    @Test func recoveryRunsEveryMinuteByDefault() throws {
        let postgres = ["DATABASE_URL": "postgres://exposure@db:5432/submission"]
        #expect(try SubmissionConfiguration(TestServices.settings(postgres)).recoveryInterval == .seconds(60))
        _ = try SubmissionConfiguration(TestServices.settings(postgres.merging(["DATABASE_TIMEOUT": "5s", "VERIFICATION_TIMEOUT": "4s"]) { $1 }))
        #expect(try SubmissionConfiguration(TestServices.settings(["RECOVERY_INTERVAL": "5s"])).recoveryInterval == .seconds(5))
    }
}
