import ExposureTestSupport
import Foundation
import Testing
@testable import Submission
@testable import SubmissionCore

/// The published app configuration checked by tools that share nothing with this code base: Python's zipfile and
/// protobuf (classes protoc generates from `app_config.proto`, the message an app is given) decode it, OpenSSL
/// verifies its signature. The expected values are the JSON the test configured, not what our types make of it.
@Suite struct IndependentAppConfigurationTests {
    /// Values away from the defaults, so that a file published from the defaults (or from the JSON ignored) fails:
    /// a negative `sint32` (zigzag on the wire), doubles that are not whole, an enum, non-ASCII text.
    static let configured = """
        {
          "minRiskScore": 42,
          "exposureDetection": {
            "attenuationScores": [1, 2, 3, 4, 5, 6, 7, 8],
            "attenuationWeight": 12.5,
            "daysSinceLastExposureScores": [8, 7, 6, 5, 4, 3, 2, 1],
            "daysSinceLastExposureWeight": 37.25,
            "durationScores": [0, 1, 0, 1, 0, 1, 0, 1],
            "durationWeight": 99.5,
            "transmissionRiskScores": [2, 2, 3, 3, 4, 4, 5, 5],
            "transmissionRiskWeight": 0.75
          },
          "attenuationDuration": {
            "lowerThresholdDb": 51,
            "upperThresholdDb": 67,
            "nearWeight": 1.5,
            "mediumWeight": 0.25,
            "farWeight": 0.125,
            "defaultBucketOffset": 3,
            "riskScoreNormalizationDivisor": 40
          },
          "riskScoreClasses": [
            {"label": "NIEDRIG", "min": 0, "max": 17, "url": "https://example.org/niedrig"},
            {"label": "HÖHER – rot", "min": 17, "max": 9000, "url": "https://example.org/höher"}
          ],
          "daysSinceOnsetInfectiousness": [
            {"daysSinceOnset": -13, "infectiousness": "INFECTIOUSNESS_STANDARD"},
            {"daysSinceOnset": -1, "infectiousness": "INFECTIOUSNESS_HIGH"},
            {"daysSinceOnset": 9, "infectiousness": "INFECTIOUSNESS_NONE"}
          ],
          "transmissionRiskValues": [
            {"transmissionRiskLevel": 3, "value": 0.3},
            {"transmissionRiskLevel": 8, "value": 2.5}
          ],
          "supportedCountries": ["DE", "FR", "NL"]
        }
        """

    static func canonical(_ json: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test func pythonDecodesTheConfiguredValuesAndOpenSSLVerifiesTheSignature() async throws {
        // The configuration does not depend on the database: one run on SQLite says it all.
        try await SubmissionHarness.run(.sqlite) { h in
            let work = FileManager.default.temporaryDirectory.appendingPathComponent("app-config-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: work) }
            let file = work.appendingPathComponent("app_config.json")
            try Self.configured.write(to: file, atomically: true, encoding: .utf8)

            try await DistributorTests().withDistributor(h, settings: ["APP_CONFIG_FILE": file.path]) { run in
                _ = try await run.distributor.run(now: h.clock.now())
                let classes = try ExternalTool.pythonClasses(for: [
                    ("app_config.proto", ExternalTool.publishedProtos), ("export_contract.proto", ExternalTool.fixtures),
                ])
                defer { try? FileManager.default.removeItem(at: classes) }
                let output = try await ExternalTool.run([
                    ExternalTool.python, ExternalTool.fixtures.appendingPathComponent("read_app_config.py").path,
                    classes.path, run.writer.fileURL(run.layout.appConfig).path, work.path,
                ])
                let report = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
                #expect(report["entries"] as? [String] == ["export.bin", "export.sig"])

                // Field by field as configured, both sides written out again with sorted keys to compare them whole.
                let decoded = try Self.canonical(try #require(report["configuration"]))
                let expected = try Self.canonical(try JSONSerialization.jsonObject(with: Data(Self.configured.utf8)))
                #expect(decoded == expected)

                let signatures = try #require(report["signatures"] as? [[String: Any]])
                #expect(signatures.count == 1)
                #expect(signatures.first?["batch"] as? [Int] == [1, 1])
                #expect(signatures.first?["keyId"] as? String == "262")
                #expect(signatures.first?["keyVersion"] as? String == "v1")
                #expect(signatures.first?["algorithm"] as? String == "1.2.840.10045.4.3.2")

                #expect(try ExternalTool.opensslVerifiesOnlyTheSignedBytes(
                    work.appendingPathComponent("export.bin"), signature: work.appendingPathComponent("signature.der"), publicKey: run.key.publicKey
                ))
            }
        }
    }
}
