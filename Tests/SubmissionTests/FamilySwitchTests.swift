import ExposureCore
import ExposureTestSupport
import Foundation
import NIOHTTP1
import Testing
@testable import Submission
@testable import SubmissionCore
@testable import SubmissionCovidShield

/// Issue #64: a CWA-only health authority turns the other families off (`COVIDSHIELD_ENABLED`, `PROTEGO_ENABLED`,
/// default off). Their paths are then not there (404, for any method), their download output is not written, and
/// their keys need not be configured; the CWA path is unaffected.
@Suite struct FamilySwitchTests {
    static let off = [
        "COVIDSHIELD_ENABLED": "false", "PROTEGO_ENABLED": "false",
        // None of their keys: a disabled family needs none.
        "COVIDSHIELD_KEY_ENCRYPTION_KEY_FILE": "", "COVIDSHIELD_RETRIEVE_HMAC_KEY_FILE": "", "PROTEGO_SIGNING_KEY_FILE": "",
    ]

    @Test(arguments: TestDatabase.all)
    func aDisabledFamilysPathsAreNotThereAndItsKeysAreNotNeeded(kind: TestDatabase) async throws {
        let configuration = try SubmissionConfiguration(TestServices.settings(Self.off))
        try configuration.checkServing()
        #expect(!configuration.writesProteGOExports)
        try await SubmissionHarness.run(kind, environment: Self.off.merging(["SERVE_EXPORTS": "true"]) { $1 }) { h in
            let paths: [(NIOHTTP1.HTTPMethod, String)] = [
                (.POST, "/claim-key"), (.POST, "/upload"), (.GET, "/retrieve-day/2026-11-27/00"),
                (.GET, "/retrieve-hour/2026-11-27/10/00"), (.GET, "/exposure-configuration/ON.json"), (.GET, "/services/ping"),
                (.POST, "/getAccessToken"), (.POST, "/uploadDiagnosisKeys"), (.PUT, "/claim-key"), (.GET, "/protego/PL/index.txt"),
            ]
            for (method, path) in paths {
                let answer = try await h.client.request(method, path, body: Array("{}".utf8))
                #expect(answer.status == 404, "\(method) \(path) answered \(answer.status)")
            }
            // The CWA path is there: a fake upload is answered as a real one would be.
            #expect(try await h.submit([0xFF, 0x00, 0x13], tan: Codes.uuidV4(using: SystemRandomSource()), fake: "1").status == 200)
            let distributor = try SubmissionService.makeDistributor(configuration, database: h.database, logger: TestLogger.quiet)
            #expect(distributor.protego == nil)
            #expect(!h.jobNames.contains("submission.covidshield-retention"))
        }
    }

    /// An enabled family's own jobs run beside the service's (registered through `SubmissionFamily.jobs`): CovidShield
    /// deletes its dead key pairs, LEMON imports its statistics file; a disabled family has none.
    @Test(arguments: TestDatabase.all)
    func anEnabledFamilysOwnJobsRunBesideTheServices(kind: TestDatabase) async throws {
        let statistics = FileManager.default.temporaryDirectory.appendingPathComponent("lemon-\(UUID().uuidString).csv").path
        try Data("Country_Region,Confirmed\n".utf8).write(to: URL(fileURLWithPath: statistics))
        defer { try? FileManager.default.removeItem(atPath: statistics) }
        let enabled = Self.off.merging(CovidShieldWire.settings) { $1 }.merging(LemonTestKeys.settings) { $1 }.merging([
            "COVIDSHIELD_ENABLED": "true", "LEMON_STATISTICS_FILE": statistics,
        ]) { $1 }
        try await SubmissionHarness.run(kind, environment: enabled) { h in
            #expect(h.jobNames.contains("submission.retention"))
            #expect(h.jobNames.contains("submission.covidshield-retention"))
            #expect(h.jobNames.contains("submission.lemon-statistics"))
        }
        try await SubmissionHarness.run(kind, environment: Self.off.merging(["LEMON_STATISTICS_FILE": statistics]) { $1 }) { h in
            #expect(h.jobNames.contains("submission.retention"))
            #expect(!h.jobNames.contains("submission.covidshield-retention"))
            #expect(!h.jobNames.contains("submission.lemon-statistics"))
        }
    }

    /// Enabled, each family needs its keys to serve: one line naming the first one missing.
    @Test func anEnabledFamilyServesOnlyWithItsKeys() throws {
        let covidShield = try SubmissionConfiguration(TestServices.settings(Self.off.merging(["COVIDSHIELD_ENABLED": "true"]) { $1 }))
        #expect(throws: CovidShieldConfiguration.keyEncryptionKeyMissing) { try covidShield.checkServing() }
        let protego = try SubmissionConfiguration(TestServices.settings(Self.off.merging(["PROTEGO_ENABLED": "true"]) { $1 }))
        do {
            try protego.checkServing()
            Issue.record("ProteGO served without its export signing key")
        } catch {
            #expect(error.variable == "PROTEGO_SIGNING_KEY_FILE")
        }
        // Without its download output, ProteGO needs no signing key.
        let uploadsOnly = try SubmissionConfiguration(TestServices.settings(Self.off.merging(["PROTEGO_ENABLED": "true", "PROTEGO_EXPORTS": "false"]) { $1 }))
        try uploadsOnly.checkServing()
    }
}
