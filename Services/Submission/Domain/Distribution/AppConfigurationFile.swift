import ExposureProtocol
import Foundation
import SwiftProtobuf

/// The app configuration published at `version/v1/configuration/country/<C>/app_config`: the exposure-detection and
/// risk-calculation parameters as an `ApplicationConfiguration` message (`export.bin`), signed like a key file
/// (`export.sig`).
///
/// Operators write it as JSON in the protobuf JSON mapping of `Shared/Protocol/proto/app_config.proto`
/// (`APP_CONFIG_FILE`); without one, `defaultJSON` is published.
public enum AppConfigurationFile {
    /// Sensible defaults from the published reference values (risk score classes low < 15 ≤ high, attenuation
    /// thresholds 55/63 dB, transmission risk values rising with the level).
    public static let defaultJSON = """
        {
          "minRiskScore": 11,
          "exposureDetection": {
            "attenuationScores": [0, 5, 5, 5, 5, 5, 5, 5],
            "attenuationWeight": 50,
            "daysSinceLastExposureScores": [5, 5, 5, 5, 5, 5, 5, 5],
            "daysSinceLastExposureWeight": 50,
            "durationScores": [0, 0, 0, 0, 5, 5, 5, 5],
            "durationWeight": 50,
            "transmissionRiskScores": [0, 0, 0, 0, 0, 0, 0, 0],
            "transmissionRiskWeight": 50
          },
          "attenuationDuration": {
            "lowerThresholdDb": 55,
            "upperThresholdDb": 63,
            "nearWeight": 1.0,
            "mediumWeight": 0.5,
            "farWeight": 0.0,
            "defaultBucketOffset": 0,
            "riskScoreNormalizationDivisor": 25
          },
          "riskScoreClasses": [
            {"label": "LOW", "min": 0, "max": 15, "url": ""},
            {"label": "HIGH", "min": 15, "max": 72000, "url": ""}
          ],
          "daysSinceOnsetInfectiousness": [
            {"daysSinceOnset": -14, "infectiousness": "INFECTIOUSNESS_NONE"},
            {"daysSinceOnset": -2, "infectiousness": "INFECTIOUSNESS_STANDARD"},
            {"daysSinceOnset": 0, "infectiousness": "INFECTIOUSNESS_HIGH"},
            {"daysSinceOnset": 3, "infectiousness": "INFECTIOUSNESS_STANDARD"},
            {"daysSinceOnset": 10, "infectiousness": "INFECTIOUSNESS_NONE"}
          ],
          "transmissionRiskValues": [
            {"transmissionRiskLevel": 1, "value": 0.0},
            {"transmissionRiskLevel": 2, "value": 0.0},
            {"transmissionRiskLevel": 3, "value": 0.6},
            {"transmissionRiskLevel": 4, "value": 0.8},
            {"transmissionRiskLevel": 5, "value": 1.0},
            {"transmissionRiskLevel": 6, "value": 1.2},
            {"transmissionRiskLevel": 7, "value": 1.4},
            {"transmissionRiskLevel": 8, "value": 1.6}
          ],
          "supportedCountries": ["DE"]
        }
        """

    public static func parse(json: String) throws -> ApplicationConfiguration {
        try ApplicationConfiguration(jsonString: json)
    }

    /// The zip of a configuration, signed by each of `signers` (the primary key's signature first).
    public static func make(_ configuration: ApplicationConfiguration, signers: ExportSignerSet) throws -> Data {
        let binary: [UInt8] = try configuration.serializedBytes()
        let list = try signers.signatureList(for: binary)
        return try ExportArchive.zip([("export.bin", Data(binary)), ("export.sig", try list.serializedData())])
    }
}
