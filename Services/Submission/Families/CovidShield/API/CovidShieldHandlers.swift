import ExposureCore
import ExposureStatistics
import Foundation
import Logging
import OpenAPIRuntime
import SubmissionCore
import SubmissionDomain

/// The handlers of `openapi/covidshield.yaml`, on the submission listener beside the CWA upload: the order of work of
/// each CovidShield endpoint, over the rules in `Domain/CovidShield/` and the one key store. Every answer is the
/// family's own (protobuf or plain text), never the JSON error body of the CWA endpoints.
struct CovidShieldHandlers: APIProtocol {
    let configuration: CovidShieldConfiguration
    /// The home country, whose keys the CWA app uploads (`HOME_COUNTRY`).
    let homeCountry: String
    let keyPairs: CovidShieldKeyPairStore
    let keys: DiagnosisKeyStore
    let codes: OneTimeCodes
    let sealer: SecretSealer
    let retrieval: CovidShieldRetrievalRules
    let keyRules = CovidShieldKeyRules()
    let metrics: CovidShieldMetrics
    /// Daily statistics (docs/statistics.md): the keys and first uploads of key pairs, beside the other families'.
    let statistics: DailyCounter
    let environment: ServiceEnvironment

    var logger: Logger { environment.logger }

    func ping(_ input: Operations.ping.Input) async throws -> Operations.ping.Output {
        .ok(.init(body: .plainText(HTTPBody("OK\n"))))
    }

    func exposureConfiguration(
        _ input: Operations.exposureConfiguration.Input
    ) async throws -> Operations.exposureConfiguration.Output {
        let file = input.path.file
        guard file.hasSuffix(".json"), configuration.regions.contains(String(file.dropLast(".json".count))) else {
            return .notFound(.init(body: .text_plain_charset_utf_hyphen_8(HTTPBody(CovidShieldTextAnswer.pageNotFound.text))))
        }
        // Checked to be a JSON object when the configuration was read.
        let object = try JSONDecoder().decode(OpenAPIObjectContainer.self, from: Data(configuration.exposureConfiguration.utf8))
        return .ok(.init(body: .json(.init(additionalProperties: object))))
    }
}
